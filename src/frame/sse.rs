//! Server-sent events (`text/event-stream`, the WHATWG HTML standard's §9.2): messages
//! as `data:` lines of events, for a reply or a stream of notifications over HTTP.
//!
//! [`SseWriter`] writes events (each a message's `data:` lines, with an optional id and
//! type), comments and `retry:` into a caller's buffer; a value is never split or cut:
//! what does not fit is refused whole. [`SseAccumulator`] reads a stream of events as
//! it arrives, in chunks of any size, byte by byte through the standard's parsing rules
//! (lines ended by CRLF, LF or CR; a leading space after the colon dropped; comments and
//! unknown fields ignored; the last event id kept across events), into fixed buffers:
//! an event whose data is longer than `N` is skipped and reported, and the stream goes
//! on at the next one.
//!
//! As a [`Framer`](super::Framer), the accumulator yields each event's data as a frame
//! (a JSON-RPC message, as MCP's Streamable HTTP sends them) and frames a reply as one
//! event (`data: ` and a blank line: the codec's replies hold no line break).

pub use super::{EndOfInput, FeedResult};

/// How a message of one line is one event: `data: `, the message, then the line end
/// and the blank line that end the event. The codec's messages hold no line break, so
/// every reply and notification it writes goes this way ([`SseWriter::event`] splits
/// any other text into lines).
pub(crate) const DATA: &[u8] = b"data: ";
/// The end of a one-line event: see [`DATA`].
pub(crate) const EVENT_END: &[u8] = b"\n\n";

/// An event or comment that did not fit in the writer's buffer (nothing of it was
/// written), or a field value that may not hold a line break (an id, a type).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Refused;

/// Writes server-sent events into a buffer.
///
/// ```
/// use jsonrpc_slice::frame::sse::SseWriter;
///
/// let mut buf = [0u8; 128];
/// let mut w = SseWriter::new(&mut buf);
/// w.comment(b"keep-alive")?;
/// w.event(Some(b"7"), None, br#"{"jsonrpc":"2.0","id":1,"result":{}}"#)?;
/// w.event(None, Some(b"note"), b"two\nlines")?;
/// assert_eq!(
///     w.written(),
///     &b": keep-alive\n\nid: 7\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n\n\
///        event: note\ndata: two\ndata: lines\n\n"[..]
/// );
/// # Ok::<(), jsonrpc_slice::frame::sse::Refused>(())
/// ```
#[derive(Debug)]
pub struct SseWriter<'o> {
    out: &'o mut [u8],
    len: usize,
}

impl<'o> SseWriter<'o> {
    /// A writer that fills `out` from its start.
    pub fn new(out: &'o mut [u8]) -> Self {
        Self { out, len: 0 }
    }

    /// The events written so far.
    pub fn written(&self) -> &[u8] {
        &self.out[..self.len]
    }

    /// How many bytes have been written.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Nothing written yet.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Starts again at the buffer's start (the events written are dropped).
    pub fn clear(&mut self) {
        self.len = 0;
    }

    /// One event: `id:` (when given; it becomes the reader's last event id), `event:`
    /// (its type, when given; readers take `message` otherwise), then `data`, one
    /// `data:` line for each of its lines (split at CRLF, LF or CR, as a reader joins
    /// them with LF), then the blank line that ends it. `id` and `event` may hold no
    /// line break (nor, for `id`, a NUL, which readers ignore).
    pub fn event(
        &mut self,
        id: Option<&[u8]>,
        event: Option<&[u8]>,
        data: &[u8],
    ) -> Result<(), Refused> {
        let breaks = |v: &[u8]| v.iter().any(|&b| b == b'\n' || b == b'\r');
        if id.is_some_and(|id| breaks(id) || id.contains(&0)) || event.is_some_and(breaks) {
            return Err(Refused);
        }
        let start = self.len;
        let written = (|| {
            if let Some(id) = id {
                self.line(b"id", id)?;
            }
            if let Some(event) = event {
                self.line(b"event", event)?;
            }
            for line in lines(data) {
                self.line(b"data", line)?;
            }
            self.put(b"\n")
        })();
        if written.is_err() {
            self.len = start;
        }
        written
    }

    /// A comment (`: text`, which readers ignore: a keep-alive, or a note), one line for
    /// each of its lines, then a blank line.
    pub fn comment(&mut self, text: &[u8]) -> Result<(), Refused> {
        let start = self.len;
        let written = (|| {
            for line in lines(text) {
                self.line(b"", line)?;
            }
            self.put(b"\n")
        })();
        if written.is_err() {
            self.len = start;
        }
        written
    }

    /// `retry: ms`: how long a reader waits before it reconnects.
    pub fn retry(&mut self, ms: u32) -> Result<(), Refused> {
        let mut digits = [0u8; 10];
        let mut n = ms;
        let mut i = digits.len();
        loop {
            i -= 1;
            digits[i] = b'0' + (n % 10) as u8;
            n /= 10;
            if n == 0 {
                break;
            }
        }
        let start = self.len;
        let written = self
            .line(b"retry", &digits[i..])
            .and_then(|()| self.put(b"\n"));
        if written.is_err() {
            self.len = start;
        }
        written
    }

    /// `name: value\n`.
    fn line(&mut self, name: &[u8], value: &[u8]) -> Result<(), Refused> {
        self.put(name)?;
        self.put(b": ")?;
        self.put(value)?;
        self.put(b"\n")
    }

    fn put(&mut self, bytes: &[u8]) -> Result<(), Refused> {
        let end = self.len.checked_add(bytes.len()).ok_or(Refused)?;
        let room = self.out.get_mut(self.len..end).ok_or(Refused)?;
        room.copy_from_slice(bytes);
        self.len = end;
        Ok(())
    }
}

/// The lines of `text`, split at CRLF, LF or CR (at least one: the empty text is one
/// empty line).
fn lines(text: &[u8]) -> impl Iterator<Item = &[u8]> {
    let mut rest = Some(text);
    core::iter::from_fn(move || {
        let text = rest?;
        match text.iter().position(|&b| b == b'\n' || b == b'\r') {
            None => {
                rest = None;
                Some(text)
            }
            Some(at) => {
                let skip = match (text[at], text.get(at + 1)) {
                    (b'\r', Some(b'\n')) => 2,
                    _ => 1,
                };
                rest = Some(&text[at + skip..]);
                Some(&text[..at])
            }
        }
    })
}

/// The longest event id and event type an [`SseAccumulator`] keeps; a longer one makes
/// its event oversized.
pub const MAX_FIELD: usize = 128;

/// One event read by [`SseAccumulator::feed_event`].
#[derive(Debug, PartialEq, Eq)]
pub enum SseFeed<'a, 'b> {
    /// All of the input was taken; no event is complete yet.
    Consumed,
    /// An event, and the input not yet fed.
    Event {
        /// The event.
        event: Event<'a>,
        /// The rest of the input: feed it next.
        remaining: &'b [u8],
    },
    /// An event whose data (or id, or type) did not fit; it was skipped.
    Oversized {
        /// The rest of the input: feed it next.
        remaining: &'b [u8],
    },
}

/// A server-sent event.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Event<'a> {
    /// Its data: its `data:` lines joined with LF.
    pub data: &'a [u8],
    /// Its type (`event:`); empty when none was given, which readers take as
    /// `message`.
    pub event: &'a [u8],
    /// The last event id (`id:`) as of this event: set by this event or an earlier
    /// one, empty when none or when reset by an empty `id:`.
    pub id: &'a [u8],
}

/// Where the parser is within a line.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum At {
    /// At a line's start.
    LineStart,
    /// In a field's name: `len` bytes of it so far.
    Name,
    /// Just after the colon (a space here is dropped).
    AfterColon,
    /// In the field's value.
    Value,
    /// In a comment, or in the value of a field that is ignored.
    Ignore,
}

/// Which field a value belongs to.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Field {
    Data,
    Event,
    Id,
    Retry,
    Other,
}

/// Reads server-sent events of at most `N` bytes of data out of a byte stream.
///
/// ```
/// use jsonrpc_slice::frame::sse::{SseAccumulator, SseFeed};
///
/// let mut acc = SseAccumulator::<256>::new();
/// let mut seen = 0;
/// for chunk in [&b": hello\n\nid: 1\nda"[..], b"ta: {\"a\":\r\ndata: 1}\n\n"] {
///     let mut input = chunk;
///     loop {
///         match acc.feed_event(input) {
///             SseFeed::Consumed => break,
///             SseFeed::Event { event, remaining } => {
///                 assert_eq!((event.data, event.id), (&b"{\"a\":\n1}"[..], &b"1"[..]));
///                 seen += 1;
///                 input = remaining;
///             }
///             SseFeed::Oversized { remaining } => input = remaining,
///         }
///     }
/// }
/// assert_eq!(seen, 1);
/// ```
#[derive(Debug)]
pub struct SseAccumulator<const N: usize> {
    data: [u8; N],
    len: usize,
    id: [u8; MAX_FIELD],
    id_len: usize,
    /// The id being read (it replaces `id` at its line's end, unless it holds a NUL).
    next_id: [u8; MAX_FIELD],
    next_id_len: usize,
    event: [u8; MAX_FIELD],
    event_len: usize,
    /// The field name read so far (the known names are at most 5 bytes).
    name: [u8; 5],
    name_len: usize,
    at: At,
    field: Field,
    /// The data holds at least one `data:` line.
    has_data: bool,
    /// Something of this event did not fit.
    oversized: bool,
    /// The id being read holds a NUL or did not fit.
    bad_id: bool,
    /// The last byte was a CR: an LF now is part of that line end.
    after_cr: bool,
    /// The stream's first byte has yet to come (a byte-order mark there is dropped).
    bom: u8,
    retry: Option<u32>,
    retry_digits: Option<u32>,
}

impl<const N: usize> Default for SseAccumulator<N> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const N: usize> SseAccumulator<N> {
    /// An empty accumulator, at the start of a stream.
    pub const fn new() -> Self {
        Self {
            data: [0; N],
            len: 0,
            id: [0; MAX_FIELD],
            id_len: 0,
            next_id: [0; MAX_FIELD],
            next_id_len: 0,
            event: [0; MAX_FIELD],
            event_len: 0,
            name: [0; 5],
            name_len: 0,
            at: At::LineStart,
            field: Field::Other,
            has_data: false,
            oversized: false,
            bad_id: false,
            after_cr: false,
            bom: 0,
            retry: None,
            retry_digits: None,
        }
    }

    /// The last `retry:` the stream gave (milliseconds), if any.
    pub fn retry(&self) -> Option<u32> {
        self.retry
    }

    /// The last event id (kept across events, and after the stream ends: what a
    /// reader sends back as `Last-Event-ID` when it reconnects).
    pub fn last_event_id(&self) -> &[u8] {
        &self.id[..self.id_len]
    }

    /// Feeds bytes in; stops at the first event dispatched (a blank line after at least
    /// one `data:` line) and returns it with the input not yet taken.
    pub fn feed_event<'a, 'b>(&'a mut self, input: &'b [u8]) -> SseFeed<'a, 'b> {
        let mut i = 0;
        while i < input.len() {
            let byte = input[i];
            i += 1;
            // A byte-order mark (EF BB BF) at the stream's very start is dropped.
            const BOM: [u8; 3] = [0xEF, 0xBB, 0xBF];
            if usize::from(self.bom) < BOM.len() {
                if byte == BOM[usize::from(self.bom)] {
                    self.bom += 1;
                    continue;
                }
                // Not a mark (or a partial one, dropped too: it is not text).
                self.bom = BOM.len() as u8;
            }
            if self.after_cr {
                self.after_cr = false;
                if byte == b'\n' {
                    continue;
                }
            }
            if byte == b'\r' || byte == b'\n' {
                self.after_cr = byte == b'\r';
                if self.end_line() {
                    let remaining = &input[i..];
                    return match core::mem::take(&mut self.oversized) {
                        true => {
                            self.reset_event();
                            SseFeed::Oversized { remaining }
                        }
                        false => {
                            let len = self.len;
                            let event_len = self.event_len;
                            self.reset_event();
                            SseFeed::Event {
                                event: Event {
                                    data: &self.data[..len],
                                    event: &self.event[..event_len],
                                    id: &self.id[..self.id_len],
                                },
                                remaining,
                            }
                        }
                    };
                }
                continue;
            }
            self.take(byte);
        }
        SseFeed::Consumed
    }

    /// Forgets the event being read (its data, its type) once it is dispatched or
    /// dropped; the last event id stays.
    fn reset_event(&mut self) {
        // The data stays in the buffer until the next event's first line overwrites it.
        self.has_data = false;
        self.event_len = 0;
    }

    /// One byte of a line.
    fn take(&mut self, byte: u8) {
        match self.at {
            At::LineStart | At::Name => {
                if byte == b':' {
                    self.at = match self.at {
                        // A comment.
                        At::LineStart => At::Ignore,
                        _ => {
                            self.start_value();
                            At::AfterColon
                        }
                    };
                    return;
                }
                self.at = At::Name;
                match self.name.get_mut(self.name_len) {
                    Some(b) => *b = byte,
                    // Longer than any known name: an unknown field.
                    None => self.name_len = usize::MAX,
                }
                self.name_len = self.name_len.saturating_add(1);
            }
            At::AfterColon => {
                self.at = match self.field {
                    Field::Other => At::Ignore,
                    _ => At::Value,
                };
                if byte != b' ' {
                    self.value(byte);
                }
            }
            At::Value => self.value(byte),
            At::Ignore => {}
        }
    }

    /// The field whose name has been read: its value starts.
    fn start_value(&mut self) {
        let name = self.name.get(..self.name_len).unwrap_or(&[]);
        self.field = match name {
            b"data" => Field::Data,
            b"event" => Field::Event,
            b"id" => Field::Id,
            b"retry" => Field::Retry,
            _ => Field::Other,
        };
        match self.field {
            Field::Data => {
                // Lines after the first are joined with LF.
                if self.has_data {
                    self.push_data(b'\n');
                } else {
                    self.len = 0;
                }
                self.has_data = true;
            }
            Field::Event => self.event_len = 0,
            Field::Id => {
                self.next_id_len = 0;
                self.bad_id = false;
            }
            Field::Retry => self.retry_digits = Some(0),
            Field::Other => {}
        }
    }

    fn push_data(&mut self, byte: u8) {
        match self.data.get_mut(self.len) {
            Some(b) => {
                *b = byte;
                self.len += 1;
            }
            None => self.oversized = true,
        }
    }

    /// One byte of a field's value.
    fn value(&mut self, byte: u8) {
        match self.field {
            Field::Data => self.push_data(byte),
            Field::Event => match self.event.get_mut(self.event_len) {
                Some(b) => {
                    *b = byte;
                    self.event_len += 1;
                }
                None => self.oversized = true,
            },
            Field::Id => match self.next_id.get_mut(self.next_id_len) {
                Some(b) if byte != 0 => {
                    *b = byte;
                    self.next_id_len += 1;
                }
                _ => self.bad_id = true,
            },
            Field::Retry => {
                self.retry_digits = match (self.retry_digits, byte) {
                    (Some(n), b'0'..=b'9') => n
                        .checked_mul(10)
                        .and_then(|n| n.checked_add(u32::from(byte - b'0'))),
                    _ => None,
                }
            }
            Field::Other => {}
        }
    }

    /// A line ended: `true` if it was blank and an event is to be dispatched.
    fn end_line(&mut self) -> bool {
        let at = core::mem::replace(&mut self.at, At::LineStart);
        match at {
            // A blank line: the event ends (dispatched if it has data).
            At::LineStart => {
                let dispatch = self.has_data || self.oversized;
                if !dispatch {
                    // No data: the event's type is dropped with it.
                    self.reset_event();
                }
                return dispatch;
            }
            // A name with no colon: the field with an empty value.
            At::Name => {
                self.start_value();
                self.end_value();
            }
            At::AfterColon | At::Value => self.end_value(),
            At::Ignore => {}
        }
        self.name_len = 0;
        false
    }

    /// A field's value ended.
    fn end_value(&mut self) {
        match self.field {
            Field::Id if !self.bad_id => {
                let n = self.next_id_len;
                self.id[..n].copy_from_slice(&self.next_id[..n]);
                self.id_len = n;
            }
            Field::Retry => {
                if let Some(ms) = self.retry_digits.take() {
                    self.retry = Some(ms);
                }
            }
            _ => {}
        }
        self.name_len = 0;
    }

    /// Ends the input: an event not ended by a blank line is dropped, as the standard
    /// says. The accumulator is then at the start of a new stream (the last event id
    /// and `retry` stay).
    pub fn finish(&mut self) -> EndOfInput<'_> {
        let ended = self.has_data || self.at != At::LineStart;
        *self = Self {
            id: self.id,
            id_len: self.id_len,
            retry: self.retry,
            ..Self::new()
        };
        match ended {
            true => EndOfInput::Truncated,
            false => EndOfInput::Nothing,
        }
    }

    /// Feeds bytes in as a [`Framer`](super::Framer): each event's data is a frame.
    pub fn feed<'a, 'b>(&'a mut self, input: &'b [u8]) -> FeedResult<'a, 'b> {
        // `feed_event` hands out an event of the buffer, borrowed: taken apart here.
        let mut input = input;
        loop {
            match self.feed_event(input) {
                SseFeed::Consumed => return FeedResult::Consumed,
                SseFeed::Oversized { remaining } => return FeedResult::Oversized { remaining },
                SseFeed::Event { event, remaining } if event.data.is_empty() => {
                    input = remaining;
                }
                SseFeed::Event { remaining, .. } => {
                    let len = self.len;
                    return FeedResult::Frame {
                        frame: &self.data[..len],
                        remaining,
                    };
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An event as copied out: data, type and id, each with its length.
    type Seen = Option<([u8; 32], usize, [u8; 8], usize, [u8; 8], usize)>;

    /// Every event of `input` fed in chunks of `step` bytes: (data, type, id), or
    /// `None` for an oversized one.
    fn events<const N: usize>(
        acc: &mut SseAccumulator<N>,
        input: &[u8],
        step: usize,
        out: &mut [Seen],
    ) -> usize {
        let mut n = 0;
        for chunk in input.chunks(step) {
            let mut chunk = chunk;
            loop {
                match acc.feed_event(chunk) {
                    SseFeed::Consumed => break,
                    SseFeed::Event { event, remaining } => {
                        let mut d = [0u8; 32];
                        d[..event.data.len()].copy_from_slice(event.data);
                        let mut e = [0u8; 8];
                        e[..event.event.len()].copy_from_slice(event.event);
                        let mut i = [0u8; 8];
                        i[..event.id.len()].copy_from_slice(event.id);
                        out[n] =
                            Some((d, event.data.len(), e, event.event.len(), i, event.id.len()));
                        n += 1;
                        chunk = remaining;
                    }
                    SseFeed::Oversized { remaining } => {
                        out[n] = None;
                        n += 1;
                        chunk = remaining;
                    }
                }
            }
        }
        n
    }

    fn data(e: &Seen) -> &[u8] {
        let e = e.as_ref().unwrap();
        &e.0[..e.1]
    }

    #[test]
    fn the_standards_rules_hold_in_any_chunking() {
        // Comments, a space after the colon dropped (one only), lines joined with LF,
        // every line end, an unknown field, a field with no colon, an event with no
        // data (not dispatched), the last id kept, `retry` read.
        let stream = b"\xEF\xBB\xBF: comment\r\ndata:a\r\ndata:  b\rfoo: x\nevent: t\n\n\
                       id: 9\nretry: 1500\n\ndata\n\ndata: c\r\n\r\n";
        for step in 1..stream.len() {
            let mut acc = SseAccumulator::<16>::new();
            let mut out = [None; 8];
            let n = events(&mut acc, stream, step, &mut out);
            assert_eq!(n, 3, "step {step}");
            assert_eq!(data(&out[0]), b"a\n b");
            let first = out[0].as_ref().unwrap();
            assert_eq!((&first.2[..first.3], first.5), (&b"t"[..], 0));
            // `data` with no colon: one empty line, dispatched as empty data.
            assert_eq!(data(&out[1]), b"");
            let third = out[2].as_ref().unwrap();
            assert_eq!(
                (data(&out[2]), &third.4[..third.5], third.3),
                (&b"c"[..], &b"9"[..], 0)
            );
            assert_eq!(acc.retry(), Some(1500));
            assert_eq!(acc.last_event_id(), b"9");
            assert_eq!(acc.finish(), EndOfInput::Nothing);
        }
    }

    #[test]
    fn an_oversized_event_is_skipped_and_the_stream_goes_on() {
        let mut acc = SseAccumulator::<4>::new();
        let mut out = [None; 8];
        let n = events(
            &mut acc,
            b"data: 1234\n\ndata: 12\ndata: 34\n\ndata: ok\n\n",
            3,
            &mut out,
        );
        assert_eq!(n, 3);
        assert_eq!(data(&out[0]), b"1234");
        assert!(out[1].is_none(), "`12\\n34` is 5 bytes");
        assert_eq!(data(&out[2]), b"ok");
    }

    #[test]
    fn an_id_with_a_nul_is_ignored_and_an_empty_one_resets() {
        let mut acc = SseAccumulator::<8>::new();
        let mut out = [None; 8];
        let n = events(
            &mut acc,
            b"id: 1\ndata: a\n\nid: 2\0\ndata: b\n\nid\ndata: c\n\n",
            1,
            &mut out,
        );
        assert_eq!(n, 3);
        let ids: [&[u8]; 3] = [b"1", b"1", b""];
        for (e, id) in out.iter().zip(ids) {
            let e = e.as_ref().unwrap();
            assert_eq!(&e.4[..e.5], id);
        }
    }

    #[test]
    fn an_unended_event_is_dropped_at_the_end() {
        let mut acc = SseAccumulator::<8>::new();
        assert_eq!(acc.feed_event(b"id: 4\ndata: x\n"), SseFeed::Consumed);
        assert_eq!(acc.finish(), EndOfInput::Truncated);
        assert_eq!(acc.last_event_id(), b"4");
        assert_eq!(
            acc.feed_event(b"\n"),
            SseFeed::Consumed,
            "a new stream: nothing to end"
        );
    }

    #[test]
    fn what_the_writer_writes_the_reader_reads() {
        let mut buf = [0u8; 256];
        let mut w = SseWriter::new(&mut buf);
        w.retry(250).unwrap();
        w.comment(b"a\r\nb").unwrap();
        w.event(Some(b"e1"), Some(b"message"), b"{\"x\":\n1}\r\r\n")
            .unwrap();
        w.event(None, None, b"").unwrap();
        let len = w.len();
        let mut acc = SseAccumulator::<32>::new();
        let mut out = [None; 4];
        assert_eq!(events(&mut acc, &buf[..len], 5, &mut out), 2);
        assert_eq!(data(&out[0]), b"{\"x\":\n1}\n\n");
        assert_eq!(data(&out[1]), b"");
        assert_eq!(acc.retry(), Some(250));
        assert_eq!(acc.last_event_id(), b"e1");
    }

    #[test]
    fn the_writer_refuses_whole_what_does_not_fit_and_line_breaks_in_fields() {
        let mut buf = [0u8; 16];
        let mut w = SseWriter::new(&mut buf);
        w.event(None, None, b"12345678").unwrap(); // 16 bytes: `data: 12345678\n\n`
        assert_eq!(w.event(None, None, b""), Err(Refused));
        assert_eq!(w.len(), 16);
        w.clear();
        assert_eq!(w.event(Some(b"a\nb"), None, b"x"), Err(Refused));
        assert_eq!(w.event(Some(b"a\0"), None, b"x"), Err(Refused));
        assert_eq!(w.event(None, Some(b"a\rb"), b"x"), Err(Refused));
        assert_eq!(w.comment(b"0123456789abcdef"), Err(Refused));
        assert!(w.is_empty());
    }

    #[test]
    fn as_a_framer_each_event_with_data_is_a_frame() {
        use crate::frame::Framer;
        let mut acc = SseAccumulator::<32>::new();
        let mut input = &b"event: x\n\ndata\n\ndata: [1]\n\n"[..];
        let mut frames = 0;
        loop {
            match Framer::feed(&mut acc, input) {
                FeedResult::Frame { frame, remaining } => {
                    assert_eq!(frame, b"[1]");
                    frames += 1;
                    input = remaining;
                }
                FeedResult::Consumed => break,
                other => panic!("{other:?}"),
            }
        }
        assert_eq!(frames, 1);
        let mut scratch = [0u8; 40];
        assert_eq!(acc.reply_header(3, &mut scratch), b"data: ");
        assert_eq!(acc.reply_trailer(), b"\n\n");
    }
}

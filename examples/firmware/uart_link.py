"""The host's end of a firmware's UART in QEMU: `-chardev pipe,path=P` reads what the
host writes to P.in and writes what the UART sends to P.out (two FIFOs that
qemu-test.sh makes). Messages are framed as lines or as COBS frames whose payload
ends in its CRC-32/ISO-HDLC, little-endian (the firmware's `cobs` feature). Used by
qemu_transcript.py and noisy_link.py."""

import os
import select
import time
import zlib


def cobs_encode(data):
    """COBS: `data` with every 0x00 removed (each block led by its length + 1)."""
    out = bytearray()
    block = bytearray()
    for b in data:
        if b == 0:
            out.append(len(block) + 1)
            out += block
            block.clear()
        else:
            block.append(b)
            if len(block) == 254:
                out.append(255)
                out += block
                block.clear()
    out.append(len(block) + 1)
    out += block
    return bytes(out)


def cobs_decode(data):
    """The bytes COBS-encoded as `data`, or None if `data` is not COBS."""
    out = bytearray()
    i = 0
    while i < len(data):
        code = data[i]
        end = i + code
        if code == 0 or end > len(data) or 0 in data[i + 1:end]:
            return None
        out += data[i + 1:end]
        i = end
        if code < 255 and i < len(data):
            out.append(0)
    return bytes(out)


def crc32_le(payload):
    return zlib.crc32(payload).to_bytes(4, "little")


def frame(message, framing):
    """`message` as it goes on the wire."""
    if framing == "cobs":
        return cobs_encode(message + crc32_le(message)) + b"\0"
    return message + b"\n"


def unframe(raw, framing):
    """The message in one frame as read off the wire (its delimiter removed), or None
    if it does not decode or its CRC fails."""
    if framing != "cobs":
        return raw
    decoded = cobs_decode(raw)
    if decoded is None or len(decoded) < 4 or crc32_le(decoded[:-4]) != decoded[-4:]:
        return None
    return decoded[:-4]


class Link:
    """The UART as two FIFOs, with a log of what went each way."""

    def __init__(self, path, framing="newline", connect_timeout=10.0):
        self.framing = framing
        self.delimiter = b"\0" if framing == "cobs" else b"\n"
        deadline = time.monotonic() + connect_timeout
        while not (os.path.exists(path + ".in") and os.path.exists(path + ".out")):
            if time.monotonic() > deadline:
                raise SystemExit(f"no FIFOs {path}.in/.out for QEMU's UART")
            time.sleep(0.05)
        # O_RDWR: opening a FIFO so never blocks (Linux), whoever opened it first.
        self.tx = os.open(path + ".in", os.O_RDWR)
        self.rx = os.open(path + ".out", os.O_RDWR | os.O_NONBLOCK)
        self.buf = b""
        self.log = []
        self.sent_stream = bytearray()
        self.counted = 0

    def send_raw(self, data, pieces=1, pause=0.0):
        """Bytes as they are, in `pieces` writes `pause` seconds apart."""
        self.log.append(("-->", data))
        self.sent_stream += data
        step = max(1, (len(data) + pieces - 1) // pieces)
        for i in range(0, len(data), step):
            chunk = data[i:i + step]
            while chunk:
                n = os.write(self.tx, chunk)
                chunk = chunk[n:]
            if pause:
                time.sleep(pause)

    def send(self, message, pieces=1, pause=0.0):
        """One message, framed; the firmware counts it as one frame."""
        self.counted += 1
        self.send_raw(frame(message, self.framing), pieces, pause)

    def read_frame(self, timeout):
        """The next frame's raw bytes (delimiter removed), or None after `timeout`."""
        deadline = time.monotonic() + timeout
        while self.delimiter not in self.buf:
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            ready, _, _ = select.select([self.rx], [], [], left)
            if ready:
                try:
                    self.buf += os.read(self.rx, 65536)
                except BlockingIOError:
                    pass
        out, self.buf = self.buf.split(self.delimiter, 1)
        return out

    def read_line(self, timeout):
        """The next message (a reply), or None after `timeout` (logged either way). A
        COBS frame that does not decode or whose CRC fails is logged and reported
        as the bytes b"(bad frame)"."""
        while True:
            raw = self.read_frame(timeout)
            if raw is None:
                self.log.append(("<--", b"(timeout: no reply within %.1f s)" % timeout))
                return None
            if self.framing == "cobs" and raw == b"":
                continue
            message = unframe(raw, self.framing)
            if message is None:
                self.log.append(("<--", b"(bad frame) " + raw.hex().encode()))
                return b"(bad frame)"
            self.log.append(("<--", message))
            return message

    def frames_sent(self):
        """Frames the firmware counted: non-blank lines, or the COBS frames sent."""
        if self.framing == "cobs":
            return self.counted
        lines = bytes(self.sent_stream).split(b"\n")[:-1]
        return sum(1 for l in lines if l.strip(b" \t\r"))

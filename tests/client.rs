//! The client half against the server, in process: requests written with
//! `write_request`, answered by `Server::handle`, parsed with `parse_response`, and
//! matched by a `Pending` table — including the mistakes other libraries' users keep
//! reporting: batches that mix requests and notifications, ids that come back as
//! another type, replies that come twice or too late.

use jsonrpc_slice::client::{
    write_notification, write_request, IdCounter, Pending, RequestId, Resolution,
};
use jsonrpc_slice::envelope::{parse_response, InvalidResponse, Outcome, ResponseMessage};
use jsonrpc_slice::{demo, Limits, RawJson, Server};

static SERVER: Server<()> = Server::new(demo::TABLE);

fn raw(s: &'static str) -> RawJson<'static> {
    RawJson::new(s.as_bytes()).unwrap()
}

#[test]
fn a_mixed_batch_is_matched_request_by_request() {
    let mut ids = IdCounter::new(100);
    let mut pending: Pending<&str, 8> = Pending::new();
    // Build a batch by hand from client-written messages.
    let mut batch = b"[".to_vec();
    let mut buf = [0u8; 256];
    for (method, params, notify) in [
        ("sum", "[1,2,4]", false),
        ("notify_hello", "[7]", true),
        ("subtract", "[42,23]", false),
        ("foobar", "{}", false),
        ("update", "[1]", true),
    ] {
        let msg = if notify {
            write_notification(&mut buf, method, |p| p.raw(raw(params))).unwrap()
        } else {
            let id = ids.next_id();
            pending.insert(RequestId::Number(id), method).unwrap();
            write_request(&mut buf, RequestId::Number(id), method, |p| {
                p.raw(raw(params))
            })
            .unwrap()
        };
        if batch.len() > 1 {
            batch.push(b',');
        }
        batch.extend_from_slice(msg);
    }
    batch.push(b']');
    assert_eq!(pending.len(), 3);

    let mut out = [0u8; 1024];
    let reply = SERVER.handle(&mut (), &batch, &mut out).unwrap();
    let Ok(ResponseMessage::Batch(responses)) = parse_response(reply, &Limits::DEFAULT) else {
        panic!("not a batch: {}", String::from_utf8_lossy(reply));
    };
    assert_eq!(
        responses.len(),
        3,
        "one reply per request, none per notification"
    );
    let mut seen = Vec::new();
    for response in responses {
        let response = response.unwrap();
        let Resolution::Matched(method) = pending.resolve(response.id) else {
            panic!("unmatched {:?}", response.id);
        };
        let outcome = match response.outcome {
            Outcome::Result(r) => String::from_utf8_lossy(r.as_bytes()).into_owned(),
            Outcome::Error(e) => e.code.to_string(),
        };
        seen.push((method, outcome));
    }
    assert_eq!(
        seen,
        [
            ("sum", "7".into()),
            ("subtract", "19".into()),
            ("foobar", "-32601".into())
        ]
    );
    assert!(pending.is_empty());
}

#[test]
fn replies_that_do_not_match_are_named() {
    let mut pending: Pending<u32, 4> = Pending::new();
    pending.insert(RequestId::Number(7), 1).unwrap();
    pending.insert(RequestId::Str("x"), 2).unwrap();
    pending.insert(RequestId::Number(9), 3).unwrap();
    let replies: [(&[u8], Resolution<u32>); 6] = [
        // A server that turned the number id into a string.
        (
            br#"{"jsonrpc":"2.0","result":1,"id":"7"}"#,
            Resolution::IdTypeChanged(1),
        ),
        (
            br#"{"jsonrpc":"2.0","result":1,"id":"x"}"#,
            Resolution::Matched(2),
        ),
        (
            br#"{"jsonrpc":"2.0","result":1,"id":"x"}"#,
            Resolution::Duplicate,
        ),
        (
            br#"{"jsonrpc":"2.0","result":1,"id":8}"#,
            Resolution::Unknown,
        ),
        (
            br#"{"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error"},"id":null}"#,
            Resolution::NullId,
        ),
        (br#"{"jsonrpc":"2.0","result":1,"id":9}"#, Resolution::Late),
    ];
    assert_eq!(pending.give_up(RequestId::Number(9)), Some(3));
    for (reply, want) in replies {
        let Ok(ResponseMessage::Single(Ok(r))) = parse_response(reply, &Limits::DEFAULT) else {
            panic!("{}", String::from_utf8_lossy(reply));
        };
        assert_eq!(
            pending.resolve(r.id),
            want,
            "{}",
            String::from_utf8_lossy(reply)
        );
    }
}

#[test]
fn malformed_responses_are_rejected() {
    let cases: [(&[u8], InvalidResponse); 3] = [
        (
            br#"{"jsonrpc":"2.0","result":1,"error":{"code":1,"message":"m"},"id":1}"#,
            InvalidResponse::BothResultAndError,
        ),
        (
            br#"{"jsonrpc":"2.0","id":1}"#,
            InvalidResponse::NeitherResultNorError,
        ),
        (
            br#"{"jsonrpc":"2.0","error":{"code":"x","message":"m"},"id":1}"#,
            InvalidResponse::BadError,
        ),
    ];
    for (reply, want) in cases {
        let Ok(ResponseMessage::Single(got)) = parse_response(reply, &Limits::DEFAULT) else {
            panic!()
        };
        assert_eq!(got, Err(want));
    }
    assert!(parse_response(b"{\"jsonrpc\":\"2.0\",", &Limits::DEFAULT).is_err());
}

#[test]
fn every_demo_reply_parses_as_a_response() {
    // Whatever the server writes, the client half reads.
    let mut out = [0u8; 256];
    for request in [
        &br#"{"jsonrpc":"2.0","method":"echo","params":{"a":[1,"\u00e9"]},"id":"e\u0301"}"#[..],
        br#"{"jsonrpc":"2.0","method":"fail","params":[1],"id":-0.5e3}"#,
        br#"{"jsonrpc":"2.0","method":"big","params":[1000],"id":null}"#,
        b"[1,2]",
        b"{",
    ] {
        let reply = SERVER.handle(&mut (), request, &mut out).unwrap();
        match parse_response(reply, &Limits::DEFAULT) {
            Ok(ResponseMessage::Single(Ok(_))) => {}
            Ok(ResponseMessage::Batch(b)) => assert!(b.into_iter().all(|r| r.is_ok())),
            other => panic!("{other:?}"),
        }
    }
}

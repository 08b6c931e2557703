//! The envelope: decided cases, and the one-pass reader against a reference reader.

use super::*;

fn single(input: &[u8]) -> Call<'_> {
    match parse(input, &Limits::DEFAULT) {
        Ok(Envelope::Single(call)) => call,
        other => panic!("{other:?}"),
    }
}

fn invalid_reason(input: &[u8]) -> (Vec<u8>, InvalidRequest) {
    match single(input) {
        Call::Invalid { id, reason } => (id.as_bytes().to_vec(), reason),
        other => panic!("{other:?}"),
    }
}

extern crate std;
use std::vec::Vec;

#[test]
fn members_in_any_order_and_escaped_keys() {
    let Call::Request(r) =
        single(br#"{"\u0069d":"x","params":{},"method":"su\u006d","jsonrpc":"2\u002e0"}"#)
    else {
        panic!()
    };
    assert!(r.method.eq_str("sum"));
    assert_eq!(r.id.unwrap().as_bytes(), br#""x""#);
    assert_eq!(r.params.unwrap().as_bytes(), b"{}");
}

#[test]
fn decided_invalid_cases() {
    let cases: &[(&[u8], &[u8], InvalidRequest)] = &[
        (
            br#"{"jsonrpc":"2.0","method":1,"id":3}"#,
            b"3",
            InvalidRequest::MethodNotString,
        ),
        (
            br#"{"jsonrpc":"2.0","id":3}"#,
            b"3",
            InvalidRequest::MissingMethod,
        ),
        (
            br#"{"jsonrpc":"1.0","method":"a","id":3}"#,
            b"3",
            InvalidRequest::BadVersion,
        ),
        (
            br#"{"jsonrpc":2.0,"method":"a","id":3}"#,
            b"3",
            InvalidRequest::BadVersion,
        ),
        (
            br#"{"method":"a","id":3}"#,
            b"3",
            InvalidRequest::BadVersion,
        ),
        (
            br#"{"jsonrpc":"2.0","method":"a","params":null,"id":3}"#,
            b"3",
            InvalidRequest::ParamsNotStructured,
        ),
        (
            br#"{"jsonrpc":"2.0","method":"a","id":true}"#,
            b"null",
            InvalidRequest::BadId,
        ),
        (
            br#"{"jsonrpc":"2.0","method":"a","id":[1]}"#,
            b"null",
            InvalidRequest::BadId,
        ),
        (
            br#"{"jsonrpc":"2.0","method":"a","method":"b","id":3}"#,
            b"3",
            InvalidRequest::DuplicateMember,
        ),
        (
            br#"{"jsonrpc":"2.0","method":"a","id":3,"id":4}"#,
            b"null",
            InvalidRequest::DuplicateMember,
        ),
        (b"1", b"null", InvalidRequest::NotAnObject),
        (b" [ ] ", b"null", InvalidRequest::EmptyBatch),
    ];
    for &(input, id, reason) in cases {
        assert_eq!(
            invalid_reason(input),
            (id.to_vec(), reason),
            "{}",
            std::str::from_utf8(input).unwrap()
        );
    }
}

/// `parse` and `parse_response` of `input` give what the reference reader gives (the
/// validator, then each object's members compared name by name), with the default
/// limits: the check of `fuzzing.rs`, which the `validate` fuzz target runs too.
fn agrees_with_the_reference_reader(input: &[u8]) {
    fuzzing::quick_reader_agrees(input, Limits::DEFAULT.max_depth);
}

/// The one-pass reader (members recorded as the quick reader reports them, batch
/// elements read by the trusted skipper, keys recognised a word at a time) gives what
/// the reference reader gives, on the bench messages, each cut at every length and with
/// bytes changed.
#[test]
fn one_pass_agrees_with_the_reference_reader() {
    let mut seeds: Vec<Vec<u8>> = std::vec![
        br#"{"id":1,"jsonrpc":"2.0","method":"m"}"#.to_vec(),
        br#" { "jsonrpc" : "2.0" , "method" : "m" , "id" : "x" } "#.to_vec(),
        br#"[{"jsonrpc":"2.0","method":"a","params":{"k":[1,{"x":"]"}]},"id":1},2,{"jsonrpc":"2.0","error":{"code":1,"message":"m"},"id":null}]"#.to_vec(),
        br#"{"jsonrpc":"2.0","result":[],"error":null,"id":7,"id":8}"#.to_vec(),
        br#"{"jsonrpc":"2.0","method":"textDocument/didChange","params":{"textDocument":{"uri":"file:///a.rs","version":2},"contentChanges":[{"text":"caf\u00e9 \"q\" \\ \n\t na\u00efve"}]}}"#.to_vec(),
        br#"{"jsonrpc":"2.0","id":"r-1","method":"tools/call","params":{"name":"search","arguments":{"q":"fn","opts":{"max":5,"re":false}},"_meta":{"progressToken":"t"}}}"#.to_vec(),
        br#"[{"jsonrpc":"2.0","method":"sum","params":[1,2,4],"id":"1"},{"jsonrpc":"2.0","method":"log","params":{"m":"x"}},{"jsonrpc":"2.0","id":3,"result":{"a":[1.5,-2e3]}},{"jsonrpc":"2.0","method":"get_data","id":9}]"#.to_vec(),
    ];
    // The bench messages of the conformance corpus, when it is there.
    if let Some(root) = crate::test_corpus::corpus() {
        for e in std::fs::read_dir(root.join("bench")).unwrap().flatten() {
            if e.path().extension().is_some_and(|x| x == "json") {
                seeds.push(std::fs::read(e.path()).unwrap());
            }
        }
    }
    let mut rng: u64 = 0x2545_F491_4F6C_DD1D;
    let mut checked = 0;
    for seed in seeds {
        let mut inputs = std::vec![seed.clone()];
        let step = seed.len() / 300 + 1;
        for cut in (0..seed.len()).step_by(step) {
            inputs.push(seed[..cut].to_vec());
        }
        for _ in 0..200 {
            rng = rng
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let at = (rng >> 33) as usize % seed.len();
            let mut m = seed.clone();
            m[at] = b"\"\\]}[{,: 1a\x00\xff"[(rng >> 12) as usize % 13];
            inputs.push(m);
        }
        for input in &inputs {
            agrees_with_the_reference_reader(input);
            checked += 1;
        }
    }
    assert!(checked > 1000);
}

#[test]
fn batch_elements_in_order() {
    let Ok(Envelope::Batch(b)) = parse(
        br#"[1, {"jsonrpc":"2.0","method":"m"} ,[2]]"#,
        &Limits::DEFAULT,
    ) else {
        panic!()
    };
    assert_eq!(b.len(), 3);
    let calls: Vec<_> = b.collect();
    assert!(matches!(
        calls[0],
        Call::Invalid {
            reason: InvalidRequest::NotAnObject,
            ..
        }
    ));
    assert!(matches!(calls[1], Call::Request(r) if r.is_notification()));
    assert!(matches!(
        calls[2],
        Call::Invalid {
            reason: InvalidRequest::NotAnObject,
            ..
        }
    ));
}

#[test]
fn invalid_json_anywhere_is_an_error() {
    for input in [
        &br#"[{"jsonrpc":"2.0","method":"m","id":1}, {"#[..],
        br#"{"jsonrpc":"2.0","method":"m","params":[1,],"id":1}"#,
        br#"{"jsonrpc":"2.0","method":"m","id":1} x"#,
    ] {
        assert!(parse(input, &Limits::DEFAULT).is_err());
    }
}

#[test]
fn responses() {
    let one = |input: &'static [u8]| match parse_response(input, &Limits::DEFAULT) {
        Ok(ResponseMessage::Single(r)) => r,
        other => panic!("{other:?}"),
    };
    let r = one(br#"{"id":1.0,"result":{"a":[1]},"jsonrpc":"2.0"}"#).unwrap();
    assert_eq!(r.id.as_bytes(), b"1.0");
    assert_eq!(
        r.outcome,
        Outcome::Result(RawJson::trusted(br#"{"a":[1]}"#))
    );
    let r = one(br#"{"jsonrpc":"2.0","error":{"code":-32000,"message":"x","data":[1]},"id":null}"#)
        .unwrap();
    let Outcome::Error(e) = r.outcome else {
        panic!()
    };
    assert_eq!((e.code, e.data.unwrap().as_bytes()), (-32000, &b"[1]"[..]));
    let cases: &[(&[u8], InvalidResponse)] = &[
        (
            br#"{"jsonrpc":"2.0","result":1,"error":{"code":1,"message":""},"id":1}"#,
            InvalidResponse::BothResultAndError,
        ),
        (
            br#"{"jsonrpc":"2.0","id":1}"#,
            InvalidResponse::NeitherResultNorError,
        ),
        (
            br#"{"jsonrpc":"2.0","result":1}"#,
            InvalidResponse::MissingId,
        ),
        (
            br#"{"jsonrpc":"2.0","result":1,"id":{}}"#,
            InvalidResponse::BadId,
        ),
        (
            br#"{"jsonrpc":"2.0","result":1,"result":2,"id":1}"#,
            InvalidResponse::DuplicateMember,
        ),
        (
            br#"{"jsonrpc":"2.0","error":{"code":"1","message":""},"id":1}"#,
            InvalidResponse::BadError,
        ),
        (
            br#"{"jsonrpc":"2.0","error":{"code":1,"message":2},"id":1}"#,
            InvalidResponse::BadError,
        ),
        (
            br#"{"jsonrpc":"2.0","error":{"code":1.5,"message":""},"id":1}"#,
            InvalidResponse::BadError,
        ),
        (
            br#"{"jsonrpc":"2.0","error":[],"id":1}"#,
            InvalidResponse::BadError,
        ),
        (br#"{"result":1,"id":1}"#, InvalidResponse::BadVersion),
        (b"[]", InvalidResponse::EmptyBatch),
        (b"3", InvalidResponse::NotAnObject),
    ];
    for &(input, want) in cases {
        assert_eq!(
            one(input),
            Err(want),
            "{}",
            std::str::from_utf8(input).unwrap()
        );
    }
    let Ok(ResponseMessage::Batch(b)) = parse_response(
        br#"[{"jsonrpc":"2.0","result":7,"id":"1"}, 5]"#,
        &Limits::DEFAULT,
    ) else {
        panic!()
    };
    let got: Vec<_> = b.collect();
    assert_eq!(got.len(), 2);
    assert!(got[0].is_ok());
    assert_eq!(got[1], Err(InvalidResponse::NotAnObject));
}

/// How many elements the fast build's reader keeps records of (`read_fast.rs` pins its
/// `RECORDED` to this): the batches below are tested up to and past it, on either
/// build.
pub(super) const RECORDED: usize = 10;

/// Batch elements of every kind: requests, duplicates (of each member), escaped keys
/// and values, whitespace, members nested in arrays and objects with envelope names,
/// non-object elements, responses.
pub(super) const ELEMENTS: &[&str] = &[
    r#"{"jsonrpc":"2.0","method":"sum","params":[1,2,4],"id":"1"}"#,
    r#"{"jsonrpc":"2.0","method":"a","method":"b","id":3}"#,
    r#"{"\u0069d":"x","params":{},"method":"su\u006d","jsonrpc":"2\u002e0"}"#,
    r#"{ "jsonrpc" : "2.0" , "method" : "m" , "params" : [ [1,{"id":2}] , {"method":[]} ] }"#,
    "7",
    r#"[{"jsonrpc":"2.0","method":"x","id":1},{"id":2}]"#,
    "{}",
    r#"{"jsonrpc":"2.0","method":"n","params":{"a":{"b":{"c":[{"id":1}]}}},"id":null,"id":5}"#,
    r#""s""#,
    r#"{"id":12345678901234567890,"jsonrpc":"1.0","method":"z"}"#,
    r#"{"x":1,"jsonrpc":"2.0","method":"t","params":null}"#,
    r#"{"jsonrpc":"2.0","method":"m","id":1,"jsonrpc":"2.0"}"#,
    r#"{"jsonrpc":"2.0","method":"\u00e9","error":{"code":1,"message":"e"},"result":3,"id":"é"}"#,
    "null",
    r#"{"jsonrpc":"2.0","params":[],"params":{},"method":"p","id":"p"}"#,
    r#"{"jsonrpc":"2.0","result":{"id":1,"method":"r"},"id":"r"}"#,
    r#"{"params":{"x":[[[]]]},"id":-1.5e3,"method":"q","jsonrpc":"2.0","y":{"jsonrpc":1}}"#,
    "[]",
];

/// Batches of every size around the number of elements recorded in the validating
/// pass (none, one, one fewer, as many, one more, twice as many), of every mix of
/// `ELEMENTS`, compact and spaced: read as the reference reader reads them, as
/// requests and as responses, whole and cut at every length; and `max_batch` decided
/// the same way at each size.
#[test]
fn batches_around_the_recorded_count_agree_with_the_reference_reader() {
    let mut checked = 0;
    for n in [0, 1, RECORDED - 1, RECORDED, RECORDED + 1, 2 * RECORDED] {
        for first in 0..ELEMENTS.len() {
            for sep in [",", " ,\n\t"] {
                let elements: Vec<&str> = (0..n)
                    .map(|k| ELEMENTS[(first + k * 7) % ELEMENTS.len()])
                    .collect();
                let input = std::format!(" [{}] ", elements.join(sep));
                let input = input.as_bytes();
                agrees_with_the_reference_reader(input);
                if first == 0 {
                    for cut in 0..input.len() {
                        let input = &input[..cut];
                        agrees_with_the_reference_reader(input);
                    }
                }
                // One element over `max_batch`, and exactly at it.
                for max_batch in [n.saturating_sub(1), n] {
                    let limits = Limits {
                        max_batch,
                        ..Limits::DEFAULT
                    };
                    let got = match parse(input, &limits) {
                        Ok(Envelope::Batch(b)) => Ok(b.len()),
                        Ok(Envelope::Single(Call::Invalid { reason, .. })) => Err(reason),
                        other => panic!("{other:?}"),
                    };
                    let want = match n {
                        0 => Err(InvalidRequest::EmptyBatch),
                        n if n > max_batch => Err(InvalidRequest::BatchTooLarge),
                        n => Ok(n),
                    };
                    assert_eq!(got, want, "{input:?}");
                }
                checked += 1;
            }
        }
    }
    assert!(checked >= 6 * ELEMENTS.len() * 2);
}

/// Batches at nesting limits of 0 to 3, around the number of elements recorded: at a
/// limit of 1 a batch of scalars is valid but no object in it is (the quick reader
/// gives up on it, and none of its elements may come from a record), at 2 one of flat
/// objects is; each reads as the reference reader reads it.
#[test]
fn batches_at_low_depth_limits_agree_with_the_reference_reader() {
    for n in [1, RECORDED, RECORDED + 1] {
        for element in [
            "7",
            r#""s""#,
            "{}",
            r#"{"jsonrpc":"2.0","method":"m","id":1}"#,
            "[]",
        ] {
            let input = std::format!("[{}]", std::vec![element; n].join(","));
            for max_depth in 0..=3 {
                fuzzing::quick_reader_agrees(input.as_bytes(), max_depth);
            }
        }
    }
}

/// A batch longer than the records' offsets reach (the fast build reads all of its
/// elements with the trusted skipper) reads as the reference reader reads it.
#[test]
fn a_batch_too_long_to_record_agrees_with_the_reference_reader() {
    let long = std::format!(
        r#"{{"jsonrpc":"2.0","method":"big","params":["{}"],"id":1}}"#,
        "x".repeat(70_000)
    );
    for at in [0, 1, RECORDED, 2 * RECORDED] {
        let mut elements: Vec<&str> = (0..2 * RECORDED + 1)
            .map(|k| ELEMENTS[k % ELEMENTS.len()])
            .collect();
        elements[at] = &long;
        let input = std::format!("[{}]", elements.join(","));
        let input = input.as_bytes();
        assert!(input.len() > u16::MAX as usize);
        agrees_with_the_reference_reader(input);
    }
}

/// Messages as web3.py and ethers.js write them (a space after each `:` and `,`; or
/// `method` first and `jsonrpc` last), read by the member loop, agree with the
/// reference reader, and so do they with any byte up to the space in place of each
/// space or after each `:` and `,`: only JSON whitespace is passed over there.
#[test]
fn spaced_members_agree_with_the_reference_reader() {
    use std::string::ToString;
    let seeds = [
        r#"{"jsonrpc": "2.0", "method": "eth_getBalance", "params": ["0xaa", "latest"], "id": 1}"#,
        r#"{"method":"eth_getBalance","params":["0xbb","latest"],"id":1,"jsonrpc":"2.0"}"#,
        r#"[{"jsonrpc": "2.0", "method": "m", "id": 1}, {"id": 2, "method": "n", "jsonrpc": "2.0"}]"#,
    ];
    let mut checked = 0;
    for seed in seeds {
        agrees_with_the_reference_reader(seed.as_bytes());
        let places: Vec<usize> = seed
            .bytes()
            .enumerate()
            .filter(|&(_, c)| matches!(c, b' ' | b':' | b','))
            .map(|(k, c)| if c == b' ' { k } else { k + 1 })
            .collect();
        for at in places {
            for c in 0..=b' ' {
                let mut input = seed.to_string().into_bytes();
                if input.get(at) == Some(&b' ') {
                    input[at] = c;
                } else {
                    input.insert(at, c);
                }
                agrees_with_the_reference_reader(&input);
                checked += 1;
            }
        }
    }
    assert!(checked > 1_000, "{checked}");
}

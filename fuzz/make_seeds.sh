#!/usr/bin/env bash
# Regenerates the committed seed corpora of the targets below, under fuzz/corpus/, from
# the vectors written here (the seeds of `typed`, `simd` and `content_length_headers`
# are files of their own, left alone). Run it only to refresh the seeds; fuzz/smoke.sh
# never needs it. Nothing here is copied from the shared corpus: smoke.sh adds that
# (JSONTestSuite, the specification's requests, the benchmark messages) at run time,
# when it finds it.
#
#   corpus/handle/        requests: the shapes of the specification's examples, and
#                        edge requests (escapes, duplicates, deep, overflow...)
#   corpus/validate/      JSON documents, valid and not, one rule each; smoke.sh also
#                        gives these to `handle` and `typed`
#   corpus/round_trip/    flags, order, then method 0xFF params 0xFF id (see the target)
#   corpus/line_framing/  k, k chunk sizes, then a stream of requests as lines
#   corpus/stream_framing/, corpus/response/: a few streams and replies
set -euo pipefail

FUZZ_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
SEEDS="$FUZZ_DIR/corpus"

for d in handle validate round_trip line_framing stream_framing response; do
  rm -rf "${SEEDS:?}/$d"
  mkdir -p "$SEEDS/$d"
done

# --- handle: requests -------------------------------------------------------------------
hand() { printf '%s' "$2" > "$SEEDS/handle/$1.json"; }
hand positional '{"jsonrpc":"2.0","method":"subtract","params":[42,23],"id":1}'
hand named '{"jsonrpc": "2.0", "method": "subtract", "params": {"subtrahend": 23, "minuend": 42}, "id": 3}'
hand notification '{"jsonrpc":"2.0","method":"update","params":[1,2,3,4,5]}'
hand unknown '{"jsonrpc":"2.0","method":"foobar","id":"1"}'
hand invalid_json '{"jsonrpc":"2.0","method":"foobar, "params": "bar", "baz]'
hand invalid_request '{"jsonrpc":"2.0","method":1,"params":"bar"}'
hand batch '[{"jsonrpc":"2.0","method":"sum","params":[1,2,4],"id":"1"},{"jsonrpc":"2.0","method":"notify_hello","params":[7]},{"jsonrpc":"2.0","method":"subtract","params":[42,23],"id":"2"},{"foo":"boo"},{"jsonrpc":"2.0","method":"get_data","id":"9"}]'
hand batch_notifications '[{"jsonrpc":"2.0","method":"notify_sum","params":[1,2,4]},{"jsonrpc":"2.0","method":"notify_hello","params":[7]}]'
hand batch_empty '[]'
hand batch_invalid '[1,2,3]'
hand eth_call '{"jsonrpc":"2.0","method":"eth_call","params":[{"to":"0x00000000000000000000000000000000000000aa","data":"0x70a08231"},"latest"],"id":7}'
hand log '{"jsonrpc":"2.0","method":"window/logMessage","params":{"type":3,"message":"indexing \u2026 done\n"}}'
hand echo '{"jsonrpc":"2.0","method":"echo","params":[1,{"a":"\u00e9\ud83d\ude00"},[[]]],"id":"x"}'
hand fail '{"jsonrpc":"2.0","method":"fail","params":{"why":[null,true,false]},"id":-0.5e+3}'
hand big '{"jsonrpc":"2.0","method":"big","params":[300],"id":7}'
hand sum_overflow '{"jsonrpc":"2.0","method":"sum","params":[9223372036854775807,1],"id":1}'
hand escaped_keys '{"\u0069d":"a\u0062","params":{},"m\u0065thod":"su\u006d","jsonrpc":"2\u002e0"}'
hand notification_escaped '{"jsonrpc":"2\u002e0","m\u0065thod":"echo","params":[1]}'
hand duplicate_id '{"jsonrpc":"2.0","method":"sum","params":[1],"id":1,"id":2}'
hand batch_mixed '[{"jsonrpc":"2.0","method":"big","params":[40],"id":1},{"jsonrpc":"2.0","method":"update"},1,[],{"jsonrpc":"2.0","method":"nope","id":null}]'
hand deep '[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[{"jsonrpc":"2.0"}]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]'
hand lone_surrogate '{"jsonrpc":"2.0","method":"echo","params":["\udc00"],"id":1}'

# --- validate: JSON documents, one rule each --------------------------------------------
doc() { printf "$2" > "$SEEDS/validate/$1.json"; }
doc y_literals '[true,false,null]'
doc y_numbers '[0,-0,1.5,-1e10,2E-3,1e+300,123456789012345678901234567890]'
doc y_strings '["",  "a\\"b", "\\/\\b\\f\\n\\r\\t", "\\u0041\\u00e9\\ud83d\\ude00"]'
doc y_utf8 '["\xc3\xa9\xe6\xbc\xa2\xf0\x9f\x98\x80\xe2\x80\xa8"]'
doc y_object '{"a":{"b":[{},[]]},"":0,"a":1}'
doc y_whitespace ' \t\r\n[ 1 , { "k" : "v" } ]\n '
doc y_scalar '"just a string"'
doc y_nested '[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]'
doc y_long_plain '["aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\\n"]'
doc n_trailing_comma '[1,]'
doc n_trailing_comma_object '{"a":1,}'
doc n_missing_colon '{"a" 1}'
doc n_single_quote "['a']"
doc n_leading_zero '[01]'
doc n_plus '[+1]'
doc n_dot '[1.]'
doc n_exponent '[1e]'
doc n_minus '[-]'
doc n_control '["a\x01b"]'
doc n_bad_escape '["\\x41"]'
doc n_short_u '["\\u12"]'
doc n_lone_high '["\\ud800"]'
doc n_lone_low '["\\udc00"]'
doc n_reversed_pair '["\\ude00\\ud83d"]'
doc n_overlong '["\xc0\xaf"]'
doc n_surrogate_utf8 '["\xed\xa0\x80"]'
doc n_above_max '["\xf4\x90\x80\x80"]'
doc n_truncated_utf8 '["\xe6\xbc"]'
doc n_unclosed_array '[1,2'
doc n_unclosed_string '["abc'
doc n_mismatch '[1}'
doc n_two_values '1 2'
doc n_bom '\xef\xbb\xbf{}'
doc n_literal 'tru'
doc n_nan '[NaN]'
doc n_comment '[1 /* c */]'
doc n_empty ''

# --- round_trip: flags, order, method 0xFF params 0xFF id --------------------------------
rt() { printf "$2" > "$SEEDS/round_trip/$1"; }
rt positional '\x03\x00"subtract"\xff[42, 23]\xff1'
rt named '\x07\x05"subtract"\xff{"subtrahend": 23, "minuend": 42}\xff3'
rt notification '\x01\x0a"update"\xff[1,2,3,4,5]\xff'
rt no_params '\x02\x11"foobar"\xff\xff"1"'
rt method_only '\x00\x00"get_data"'
rt escapes '\x1b\x17"su\\u006d"\xff[1,2,4]\xff"a\\u0062"'
rt batch '\x13\x03"sum"\xff[1,2,4]\xff"9"'
rt float_id '\x03\x0e"echo"\xff[{"x":"]}"},[ ]]\xff1.0e-3'
rt null_id '\x0f\x09"w\\u00f6rld \xc3\xa9"\xff{}\xffnull'
rt emoji_id '\x03\x15"a\\"b"\xff[[[[]]]]\xff"\\ud83d\\ude00"'
rt negative_id '\x06\x01"x"\xff\xff-0'

# --- line_framing: k, k chunk sizes, stream -----------------------------------------------
lines() {  # a few requests, one per line, each ending with $1
  for f in positional notification unknown batch eth_call log; do
    cat "$SEEDS/handle/$f.json"; printf "$1"
  done
}
{ printf '\x00\x07'; lines '\n'; } > "$SEEDS/line_framing/lf_chunks7"
{ printf '\x02\x01\x02\x03'; lines '\r\n'; } > "$SEEDS/line_framing/crlf_chunks123"
{ printf '\x00\x00'; printf '\n\r\n \t \r\n'; lines '\n\n'; } > "$SEEDS/line_framing/blank_lines_bytewise"
{ printf '\x02\x01\xff\x0d'; cat "$SEEDS/handle/batch.json"; printf '\n[1]\r\n'; cat "$SEEDS/handle/eth_call.json"; printf '\r\n{}\n'; } \
  > "$SEEDS/line_framing/oversized_lines"
{ printf '\x01\x08\x09'; printf '12345678\n123456789\n1234567\r\n12345678\r'; } > "$SEEDS/line_framing/near_8"
{ printf '\x00\xfe'; printf '%0256d\n%0255d\r\n%0257d\n' 1 2 3; printf 'tail'; } > "$SEEDS/line_framing/near_256"


# --- stream_framing and response: a few streams and replies, made by python3 ---------
python3 - "$SEEDS" <<'PY'
import sys
seeds = sys.argv[1]
reqs = [b'{"jsonrpc":"2.0","method":"subtract","params":[42,23],"id":1}',
        b'{"jsonrpc":"2.0","method":"update","params":[1,2,3,4,5]}',
        b'[{"jsonrpc":"2.0","method":"sum","params":[1,2,4],"id":"1"},{"jsonrpc":"2.0","method":"notify_hello","params":[7]}]',
        b'{"jsonrpc":"2.0","method":"foobar, "params": "bar", "baz]', b'[]']
newline = b''.join(r + b'\r\n' for r in reqs) + b'\n  \n' + b'[' * 300 + b'\n'
content_length = (b''.join(b'Content-Length: %d\r\n\r\n' % len(r) + r for r in reqs)
                  + b'garbage\r\n\r\nContent-Length: 999\r\n\r\n' + b'x' * 999)
open(f'{seeds}/stream_framing/newline', 'wb').write(bytes([2, 7, 1, 200]) + newline)
open(f'{seeds}/stream_framing/content_length', 'wb').write(bytes([0x82, 13, 1, 64]) + content_length)
replies = [b'{"jsonrpc": "2.0", "result": 19, "id": 1}',
           b'{"jsonrpc": "2.0", "error": {"code": -32601, "message": "Method not found"}, "id": "1"}',
           b'{"jsonrpc": "2.0", "error": {"code": -32700, "message": "Parse error"}, "id": null}',
           b'[{"jsonrpc": "2.0", "result": 7, "id": "1"},{"jsonrpc": "2.0", "error": {"code": -32600, "message": "Invalid Request"}, "id": null},{"jsonrpc": "2.0", "result": ["hello", 5], "id": "9"}]',
           b'{"jsonrpc":"2.0","error":{"code":-32000,"message":"Server error","data":[1,{"a":null}]},"id":-1.5e3}']
for i, r in enumerate(replies):
    open(f'{seeds}/response/reply_{i}', 'wb').write(r)
result = b'{"jsonrpc":"2.0","result":{"items":[' + b','.join(
    b'{"id":%d,"name":"item \\u00e9 %d","ok":true,"v":[%d.5,null]}' % (i, i, i) for i in range(12)) + b']},"id":42}'
open(f'{seeds}/response/result_1k', 'wb').write(result)
PY

echo "seeds: $(find "$SEEDS" -type f | wc -l) files, $(du -sk "$SEEDS" | cut -f1) KiB on disk, $(find "$SEEDS" -type f -exec cat {} + | wc -c) bytes"
for d in "$SEEDS"/*/; do echo "  $(basename "$d"): $(ls "$d" | wc -l)"; done

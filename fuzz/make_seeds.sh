#!/usr/bin/env bash
# Regenerates the committed seed corpora under fuzz/corpus/ from the shared test corpora
# (default: ../shared/corpus relative to the repository root; or pass its path).
# Run it only to refresh the seeds; fuzz/smoke.sh never needs it.
#
#   corpus/handle/        the JSON-RPC spec's requests (section 7, `-->`), the bench
#                        messages under 1 KiB, and a few hand-written edge requests
#   corpus/validate/      JSONTestSuite test_parsing files under 1 KiB: all y_ and i_,
#                        every other n_ (the set stays under 300 files); smoke.sh also
#                        gives these to `handle`
#   corpus/round_trip/    flags, order, then method 0xFF params 0xFF id (see the target)
#   corpus/line_framing/  k, k chunk sizes, then a stream of spec requests as lines
set -euo pipefail

FUZZ_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
CORPUS="${1:-$FUZZ_DIR/../../shared/corpus}"
SEEDS="$FUZZ_DIR/corpus"
[ -d "$CORPUS/jsonrpc-spec" ] || { echo "no corpus at $CORPUS" >&2; exit 1; }

rm -rf "$SEEDS"
mkdir -p "$SEEDS"/{handle,validate,round_trip,line_framing,stream_framing,response}

# --- handle: the spec's requests, byte for byte (multi-line ones joined by \n) --------
awk -v out="$SEEDS/handle" '
  function flush() { if (cur != "") { n++; f = sprintf("%s/spec_%02d.json", out, n); printf "%s", cur > f; close(f) } cur = "" }
  /^## The examples, byte for byte/ { on = 1; next }
  on && /^## / { on = 0 }
  !on { next }
  /^```/ { flush(); active = 0; next }
  /^--> / { flush(); cur = substr($0, 5); active = 1; next }
  /^<--/ { flush(); active = 0; next }
  active { cur = cur "\n" $0 }
' "$CORPUS/jsonrpc-spec/README.md"

for f in "$CORPUS"/bench/*.json; do
  [ "$(wc -c < "$f")" -lt 1024 ] && cp "$f" "$SEEDS/handle/bench_$(basename "$f")"
done

hand() { printf '%s' "$2" > "$SEEDS/handle/edge_$1.json"; }
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

# --- validate: JSONTestSuite ------------------------------------------------------------
i=0
for f in "$CORPUS"/jsontestsuite/test_parsing/*.json; do
  [ "$(wc -c < "$f")" -lt 1024 ] || continue
  name="$(basename "$f")"
  case "$name" in
    n_*) i=$((i + 1)); [ $((i % 2)) -eq 1 ] || continue ;;
  esac
  cp "$f" "$SEEDS/validate/$name"
done

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
spec_lines() {  # the single-line spec requests, one per line, ending with $1
  for f in "$SEEDS"/handle/spec_*.json; do
    if [ "$(wc -l < "$f")" -eq 0 ]; then cat "$f"; printf "$1"; fi
  done
}
{ printf '\x00\x07'; spec_lines '\n'; } > "$SEEDS/line_framing/spec_lf_chunks7"
{ printf '\x02\x01\x02\x03'; spec_lines '\r\n'; } > "$SEEDS/line_framing/spec_crlf_chunks123"
{ printf '\x00\x00'; printf '\n\r\n \t \r\n'; spec_lines '\n\n'; } > "$SEEDS/line_framing/blank_lines_bytewise"
{ printf '\x02\x01\xff\x0d'; cat "$CORPUS/bench/03_eth_call.json"; printf '\n[1]\r\n'; cat "$CORPUS/bench/04_mcp_tools_call.json"; printf '\r\n{}\n'; } \
  > "$SEEDS/line_framing/oversized_lines"
{ printf '\x01\x08\x09'; printf '12345678\n123456789\n1234567\r\n12345678\r'; } > "$SEEDS/line_framing/near_8"
{ printf '\x00\xfe'; printf '%0256d\n%0255d\r\n%0257d\n' 1 2 3; printf 'tail'; } > "$SEEDS/line_framing/near_256"

echo "seeds: $(find "$SEEDS" -type f | wc -l) files, $(du -sk "$SEEDS" | cut -f1) KiB on disk, $(find "$SEEDS" -type f -exec cat {} + | wc -c) bytes"
for d in "$SEEDS"/*/; do echo "  $(basename "$d"): $(ls "$d" | wc -l)"; done

# --- stream_framing and response: a few streams and replies, made by python3 ---------
python3 - "$SEEDS" "$CORPUS" <<'PY'
import shutil, sys
seeds, corpus = sys.argv[1], sys.argv[2]
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
    open(f'{seeds}/response/spec_{i}', 'wb').write(r)
shutil.copy(f'{corpus}/bench/07_response_1k.json', f'{seeds}/response/bench_07')
PY

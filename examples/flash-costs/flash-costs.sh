#!/usr/bin/env bash
# What each feature of jsonrpc-slice costs in flash, on thumbv7em-none-eabihf and
# thumbv6m-none-eabi: builds src/main.rs once per row (opt-level "s", LTO,
# panic=abort) and prints a Markdown table of text bytes (code and read-only data)
# and each row's cost against the row it adds to. The table in the
# repository's README.md ("What each feature costs in flash") is its output.
#
#   bash examples/flash-costs/flash-costs.sh
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
cd "$HERE"
unset RUSTFLAGS CARGO_ENCODED_RUSTFLAGS CARGO_BUILD_TARGET
export CARGO_TARGET_DIR="$HERE/target"
TARGETS="thumbv7em-none-eabihf thumbv6m-none-eabi"
# shellcheck disable=SC2086
rustup target add $TARGETS >/dev/null
rustup component add llvm-tools >/dev/null 2>&1 || rustup component add llvm-tools-preview >/dev/null 2>&1 || true
HOST=$(rustc -vV | sed -n 's/^host: //p')
SIZE="$(rustc --print sysroot)/lib/rustlib/$HOST/bin/llvm-size"
[ -x "$SIZE" ] || { echo "flash-costs: llvm-size not found at $SIZE (rustup component add llvm-tools)" >&2; exit 1; }

# row name | features | the row it is measured against
ROWS=(
    "baseline: frames cut at 0x00, echoed||"
    "COBS framing, both directions (CRC code linked, check chosen at run time)|cobs|baseline"
    "COBS + CRC-32 in use|cobs-crc32|baseline"
    "typed params: one struct of two integers, error as Reason::message|typed|baseline"
    "its error naming the field, through core::fmt (Display)|typed-fmt|typed"
    "its error naming the field, DecodeError::message_into (no core::fmt)|typed-into|typed"
    "floats: ResultWriter::f64 (the default: the ryu feature's digits)|float-ryu|baseline"
    "floats: ResultWriter::f64 without the ryu feature (core's digits)|float|baseline"
    "the blocking serve loop (Service, newline framing), one sync method|service|baseline"
    "an Outbox in that loop, the method queuing one notification|outbox|the blocking serve loop"
    "the client: Client (4 in flight, 128 B for replies), newline framing, one call, its u64 result typed, a deadline|client|baseline"
    "the concurrent service, N = 1 slot, the same method async|concurrent-1|the blocking serve loop"
    "the concurrent service, N = 4 slots|concurrent-4|the blocking serve loop"
    "the concurrent service, N = 8 slots|concurrent-8|the blocking serve loop"
)

declare -A TEXT
for target in $TARGETS; do
    for row in "${ROWS[@]}"; do
        IFS='|' read -r name features _ <<<"$row"
        cargo build --release --quiet --target "$target" ${features:+--features "$features"}
        TEXT["$target/$name"]=$("$SIZE" -B "target/$target/release/flash-costs" | awk 'NR == 2 { print $1 }')
    done
done

echo "| row | thumbv7em-none-eabihf | cost | thumbv6m-none-eabi | cost |"
echo "|---|---:|---:|---:|---:|"
for row in "${ROWS[@]}"; do
    IFS='|' read -r name _ against <<<"$row"
    line="| $name"
    for target in $TARGETS; do
        text=${TEXT["$target/$name"]}
        cost=""
        if [ -n "$against" ]; then
            for r in "${ROWS[@]}"; do
                IFS='|' read -r n _ _ <<<"$r"
                case "$n" in "$against"*) base=${TEXT["$target/$n"]} ;; esac
            done
            cost="+$((text - base))"
        fi
        line="$line | $text | $cost"
    done
    echo "$line |"
done

#!/usr/bin/env bash
# Fuzz smoke test: builds every cargo-fuzz target and runs each for SECONDS (default 30)
# on a scratch copy of its committed seeds (fuzz/corpus/, never modified) and of the
# shared corpus's documents and messages when it finds that (see corpus_seeds), with
# -rss_limit_mb=2048. Exits non-zero if any target crashes, fails an assertion, leaks
# memory past the limit or hangs (-timeout=10), printing the crashing input's path.
#
#   bash fuzz/smoke.sh [SECONDS]        # from the repository root, or from anywhere
#
# Needs a nightly toolchain (installed with rustup if missing; without one it prints
# "SKIP: ..." and exits 0) and cargo-fuzz (installed with `cargo install --locked` if
# missing). Environment: FUZZ_SANITIZER (default "none": the crate's only unsafe code
# is the in-bounds SIMD loads of src/simd/, so ASan would mostly slow the run; use
# "address" for a careful run), FUZZ_TARGETS (default: all of them), FUZZ_JOBS (how
# many run at once; default: the number of cores). The environment reaches the build:
# CI runs some targets again with JSONRPC_SLICE_COMPACT=1, the firmware's compact build
# (build.rs).
set -euo pipefail

SECS="${1:-30}"
case "$SECS" in '' | *[!0-9]*) echo "usage: $0 [SECONDS]" >&2; exit 2 ;; esac
FUZZ_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(dirname "$FUZZ_DIR")"
SANITIZER="${FUZZ_SANITIZER:-none}"
TARGETS="${FUZZ_TARGETS:-handle validate round_trip line_framing stream_framing response content_length_headers typed simd cobs_framing json_framing}"
cd "$ROOT"

# --- toolchain and cargo-fuzz -------------------------------------------------------------
# Under CI=true a smoke run that cannot run fails.
skip() {
  if [ "${CI:-}" = true ]; then
    echo "FAIL: fuzz smoke cannot run under CI=true: no nightly toolchain${1:+ ($1)}"
    exit 1
  fi
  echo "SKIP: fuzz smoke: no nightly toolchain${1:+ ($1)}"
  exit 0
}
command -v rustup >/dev/null 2>&1 || skip "rustup not found"
if ! rustup toolchain list | grep -q '^nightly'; then
  rustup toolchain install nightly --profile minimal || skip "rustup could not install it"
fi
cargo +nightly --version >/dev/null 2>&1 || skip "cargo +nightly does not run"
if ! cargo fuzz --version >/dev/null 2>&1; then
  # A debug build: the tool only drives cargo, and a fresh machine builds it in about
  # half the time of a release build.
  cargo install cargo-fuzz --locked --debug
fi

# --- build --------------------------------------------------------------------------------
FLAGS=(--fuzz-dir "$FUZZ_DIR" -O -a -s "$SANITIZER")
echo "== building fuzz targets (cargo +nightly fuzz build ${FLAGS[*]:2})"
cargo +nightly fuzz build "${FLAGS[@]}"

# --- run ----------------------------------------------------------------------------------
SCRATCH="$(mktemp -d "${TMPDIR:-/tmp}/jsonrpc-slice-fuzz.XXXXXX")"
trap 'rm -rf "$SCRATCH"' EXIT
LOGS="$FUZZ_DIR/target/smoke-logs"
mkdir -p "$LOGS"

# The shared corpus (JSONRPC_SLICE_CORPUS, else ../shared/corpus beside the repository,
# as for the tests), when there is one: more seeds, never committed. Under
# JSONRPC_SLICE_REQUIRE_CORPUS=1 (CI) a missing corpus is a failure.
CORPUS="${JSONRPC_SLICE_CORPUS:-$ROOT/../shared/corpus}"
if [ -d "$CORPUS/jsontestsuite/test_parsing" ] && [ -d "$CORPUS/bench" ]; then
  CORPUS="$(cd "$CORPUS" && pwd)"
  echo "== seeds: the committed ones, and from the shared corpus at $CORPUS"
elif [ "${JSONRPC_SLICE_REQUIRE_CORPUS:-}" = 1 ]; then
  echo "FAIL: fuzz smoke: no shared corpus at $CORPUS (JSONRPC_SLICE_REQUIRE_CORPUS=1)"
  exit 1
else
  echo "== seeds: the committed ones only (no shared corpus at $CORPUS)"
  CORPUS=""
fi

# corpus_seeds TARGET DIR: the shared corpus's seeds of TARGET, copied into DIR: the
# files under 1 KiB of JSONTestSuite's test_parsing (documents: validate, handle,
# typed), the benchmark messages under 1 KiB (handle; 07, a response: response).
corpus_seeds() {
  [ -n "$CORPUS" ] || return 0
  local f
  case "$1" in
    validate | handle | typed)
      for f in "$CORPUS"/jsontestsuite/test_parsing/*.json; do
        [ "$(wc -c <"$f")" -lt 1024 ] && cp "$f" "$2/jsts_$(basename "$f")"
      done
      ;;
  esac
  case "$1" in
    handle)
      for f in "$CORPUS"/bench/*.json; do
        [ "$(wc -c <"$f")" -lt 1024 ] && cp "$f" "$2/bench_$(basename "$f")"
      done
      ;;
    response) cp "$CORPUS"/bench/07_*.json "$2"/ ;;
  esac
  return 0
}

# Seed directories per target: `handle` also gets validate's JSON documents, and
# `validate` (which checks the envelope's quick reader too) handle's messages.
seeds_of() {
  case "$1" in
    handle) echo "$FUZZ_DIR/corpus/handle $FUZZ_DIR/corpus/validate" ;;
    validate) echo "$FUZZ_DIR/corpus/validate $FUZZ_DIR/corpus/handle" ;;
    typed) echo "$FUZZ_DIR/corpus/typed $FUZZ_DIR/corpus/validate" ;;
    *) echo "$FUZZ_DIR/corpus/$1" ;;
  esac
}

# run_target T: runs target T for SECS on its seeds; writes its summary line to
# $SCRATCH/T.summary, and its report (the end of the log on a failure) to $SCRATCH/T.report.
run_target() {
  local t="$1" corpus="$SCRATCH/$1" d log status done_line runs cov ft corp eps artifact
  mkdir -p "$corpus"
  for d in $(seeds_of "$t"); do
    [ -d "$d" ] && cp "$d"/* "$corpus"/ 2>/dev/null || true
  done
  corpus_seeds "$t" "$corpus"
  # Saved failures are replayed too: tests/regressions/<target>-<name>.
  cp "$FUZZ_DIR"/../tests/regressions/"$t"-* "$corpus"/ 2>/dev/null || true
  local dict=()
  case "$t" in handle | validate | round_trip | typed) dict=(-dict="$FUZZ_DIR/json.dict") ;; esac
  log="$LOGS/$t.log"
  echo "== $t: ${SECS}s on $(ls "$corpus" | wc -l) seeds (log: $log)"
  status=0
  cargo +nightly fuzz run "${FLAGS[@]}" "$t" "$corpus" -- \
    -max_total_time="$SECS" -rss_limit_mb=2048 -timeout=10 -print_final_stats=1 \
    "${dict[@]}" >"$log" 2>&1 || status=$?
  done_line="$(grep -E '^#[0-9]+[[:space:]]+DONE' "$log" | tail -n 1 || true)"
  runs="$(sed -nE 's/^#([0-9]+).*/\1/p' <<<"$done_line")"
  cov="$(sed -nE 's/.*cov: ([0-9]+).*/\1/p' <<<"$done_line")"
  ft="$(sed -nE 's/.*ft: ([0-9]+).*/\1/p' <<<"$done_line")"
  corp="$(sed -nE 's/.*corp: ([0-9]+)\/.*/\1/p' <<<"$done_line")"
  eps="$(sed -nE 's/.*exec\/s: ([0-9]+).*/\1/p' <<<"$done_line")"
  if [ "$status" -eq 0 ] && [ -n "$done_line" ]; then
    printf '%-13s ok    runs=%-10s cov=%-6s ft=%-6s corpus=%-6s exec/s=%s\n' \
      "$t" "$runs" "$cov" "$ft" "$corp" "$eps" >"$SCRATCH/$t.summary"
  else
    artifact="$(sed -nE 's/.*Test unit written to ([^ ]+).*/\1/p' "$log" | tail -n 1)"
    printf '%-13s FAIL  exit=%s crashing input: %s\n' "$t" "$status" "${artifact:-?}" >"$SCRATCH/$t.summary"
    {
      echo "-- $t failed (exit $status); the end of its log:"
      grep -v '^#[0-9]' "$log" | tail -n 40
      grep -A 2 'panicked at' "$log" | head -n 6 | cut -c 1-400 || true
      if [ -n "$artifact" ]; then
        echo "-- crashing input: $artifact (replay: cargo +nightly fuzz run ${FLAGS[*]:2} $t $artifact)"
      fi
    } >"$SCRATCH/$t.report"
  fi
}

# The targets run FUZZ_JOBS at a time (default: one per core; each libFuzzer run uses
# one), so the smoke run takes SECS times the number of targets divided by FUZZ_JOBS.
JOBS="${FUZZ_JOBS:-$(nproc 2>/dev/null || echo 1)}"
running=0
for t in $TARGETS; do
  if [ "$running" -ge "$JOBS" ]; then
    wait -n || true
    running=$((running - 1))
  fi
  run_target "$t" &
  running=$((running + 1))
done
wait

failed=()
summary=()
for t in $TARGETS; do
  summary+=("$(cat "$SCRATCH/$t.summary" 2>/dev/null || printf '%-13s FAIL  no summary' "$t")")
  if ! grep -q ' ok ' "$SCRATCH/$t.summary" 2>/dev/null; then
    failed+=("$t")
    cat "$SCRATCH/$t.report" 2>/dev/null || true
  fi
done

echo "== fuzz smoke summary (${SECS}s per target)"
printf '%s\n' "${summary[@]}"
if [ "${#failed[@]}" -gt 0 ]; then
  echo "FAIL: ${failed[*]}"
  exit 1
fi

#!/usr/bin/env bash
# The core's lines of code: no blank lines, no comment lines, no tests (files named
# tests.rs, and everything from a `#[cfg(test)]` line to the end of its file, where the
# unit tests sit), in src/scan, src/envelope, src/write, src/dispatch, src/simd,
# src/raw.rs (with its child modules in src/raw/) and src/frame/newline.rs.
#
#   bash benches/core_lines.sh [REV]    (REV: a commit, read with git show; default the work tree)
set -euo pipefail
cd "$(dirname "$0")/.."
rev="${1:-}"
if [ -n "$rev" ]; then
    files=$(git ls-tree -r --name-only "$rev" -- src/scan src/envelope src/write src/dispatch src/simd src/raw.rs src/raw src/frame/newline.rs)
    # (awk stops at a file's first #[cfg(test)]: git show may then die of SIGPIPE.)
    show() { git show "$rev:$1" || true; }
else
    files=$(ls src/scan/*.rs src/envelope/*.rs src/write/*.rs src/dispatch/*.rs src/simd/*.rs src/raw.rs $(ls src/raw/*.rs 2>/dev/null) src/frame/newline.rs)
    show() { cat "$1"; }
fi
total=0
for f in $files; do
    case "$f" in */tests.rs|*/fuzzing.rs) continue ;; esac
    n=$(show "$f" | awk '/^#\[cfg\(test\)\]/ { exit } { sub(/^[ \t]+/, "") } $0 == "" { next } /^\/\// { next } { n++ } END { print n + 0 }')
    total=$((total + n))
done
echo "$total"

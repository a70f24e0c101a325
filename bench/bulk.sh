#!/usr/bin/env bash
# Bulk conversion in place: `whatenc convert -r` against shell loops over GNU iconv
# (and over whatenc itself), on 10,000 small files and on 100 large ones, Shift_JIS
# to UTF-8. Prints a Markdown table: seconds, best of RUNS (default 3), each run on
# a fresh copy of the tree (the copy is not timed). Checks that every tool wrote the
# same bytes. Not part of the test suite.
#   bash bench/bulk.sh            # RUNS=1 bash bench/bulk.sh for a quick look
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${RUNS:-3}
cargo build --quiet --release -p whatenc-cli
W=$PWD/target/release/whatenc
SAMPLE=$PWD/samples/ja.shift_jis.txt
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"

# 10,000 files of about 2 kB in 100 directories; 100 files of about 5 MB.
mkdir -p small large
for d in $(seq -w 0 99); do
  mkdir small/$d
  for f in $(seq -w 0 99); do cp "$SAMPLE" small/$d/$f.txt; done
done
for _ in $(seq 2500); do cat "$SAMPLE"; done > large.one
for f in $(seq -w 0 99); do cp large.one large/$f.txt; done
rm large.one

# iconv's Shift_JIS maps 5C to the yen sign; CP932 is the standard's Shift_JIS.
iconv_loop() {
  find "$1" -type f -print0 | while IFS= read -r -d '' f; do
    iconv -f CP932 -t UTF-8 "$f" > "$f.tmp" && mv "$f.tmp" "$f"
  done
}
iconv_xargs() {
  find "$1" -type f -print0 | xargs -0 -P "$(nproc)" -n 100 sh -c \
    'for f; do iconv -f CP932 -t UTF-8 "$f" > "$f.tmp" && mv "$f.tmp" "$f"; done' sh
}
whatenc_loop() {
  find "$1" -type f -print0 | while IFS= read -r -d '' f; do
    "$W" -q -f shift_jis -o "$f" "$f"
  done
}
whatenc_j1() { "$W" convert -q -r -j 1 -f shift_jis "$1"; }
whatenc_cores() { "$W" convert -q -r -j "$(nproc)" -f shift_jis "$1"; }
whatenc_default() { "$W" convert -q -r -f shift_jis "$1"; }

best() { # tree function: best wall time of RUNS runs, each on a fresh copy
  local tree=$1 fn=$2 best="" t
  for _ in $(seq "$RUNS"); do
    rm -rf run && cp -a "$tree" run && sync
    t=$( { TIMEFORMAT=%R; time "$fn" run > /dev/null; } 2>&1 )
    if [ -z "$best" ] || [ "$(echo "$t < $best" | bc)" = 1 ]; then best=$t; fi
  done
  # Keep the last run's output to compare the tools.
  rm -rf "out.$fn" && mv run "out.$fn"
  echo "$best"
}

echo "| files | iconv, shell loop | iconv, xargs -P $(nproc) | whatenc, shell loop | whatenc -r -j 1 | whatenc -r -j $(nproc) | whatenc -r (default -j) |"
echo "| --- | ---: | ---: | ---: | ---: | ---: | ---: |"
for set in small large; do
  row=""
  for fn in iconv_loop iconv_xargs whatenc_loop whatenc_j1 whatenc_cores whatenc_default; do
    row="$row | $(best $set $fn) s"
  done
  for fn in iconv_xargs whatenc_loop whatenc_j1 whatenc_cores whatenc_default; do
    diff -r -q out.iconv_loop "out.$fn" > /dev/null || { echo "$fn wrote other bytes than iconv" >&2; exit 1; }
  done
  count=$(find $set -type f | wc -l)
  size=$(du -s --block-size=1000000 --apparent-size $set | cut -f1)
  echo "| $count $set ($size MB)$row |"
  rm -rf out.*
done

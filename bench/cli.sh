#!/usr/bin/env bash
# The command-line tool against GNU iconv and ICU's uconv on ~50 MB inputs made from
# the benchmark corpus; prints a Markdown table (MB/s of input, mean of 7 runs).
# Needs hyperfine, iconv (libc-bin) and uconv (icu-devtools):
#   apt-get install -y hyperfine icu-devtools
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --quiet --release -p whatenc-cli
W=$PWD/target/release/whatenc
C=$PWD/bench/corpus
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
for l in ja fr ru zh_cn; do
  : > $l.utf8
  while [ "$(stat -c %s $l.utf8)" -lt 50000000 ]; do cat "$C/$l.txt" >> $l.utf8; done
done
$W convert -t shift_jis ja.utf8 > ja.sjis
$W convert -t gbk zh_cn.utf8 > zh.gbk
$W convert -t windows-1252 fr.utf8 > fr.1252
$W convert -t koi8-r ru.utf8 > ru.koi8

echo "| conversion | input MB | whatenc MB/s | iconv MB/s | uconv MB/s |"
echo "| --- | ---: | ---: | ---: | ---: |"
run() { # title file whatenc-args iconv-args uconv-args
  hyperfine -N --warmup 1 --runs 7 --export-json res.json \
    -n whatenc "$W $3 $2" -n iconv "iconv $4 $2" -n uconv "uconv $5 $2" > /dev/null 2>&1
  python3 - "$1" "$2" <<'PY'
import json, os, sys
title, path = sys.argv[1], sys.argv[2]
mb = os.path.getsize(path) / 1e6
rates = [mb / r["mean"] for r in json.load(open("res.json"))["results"]]
print(f"| {title} | {mb:.1f} | " + " | ".join(f"{r:.0f}" for r in rates) + " |")
PY
}
run "Shift_JIS → UTF-8" ja.sjis "convert -f shift_jis" "-f CP932 -t UTF-8" "-f windows-31j -t UTF-8"
run "UTF-8 → Shift_JIS" ja.utf8 "convert -c -t shift_jis" "-c -f UTF-8 -t CP932" "-c -f UTF-8 -t windows-31j"
run "GBK → UTF-8" zh.gbk "convert -f gbk" "-f GBK -t UTF-8" "-f GBK -t UTF-8"
run "UTF-8 → GBK" zh_cn.utf8 "convert -c -t gbk" "-c -f UTF-8 -t GBK" "-c -f UTF-8 -t GBK"
run "windows-1252 → UTF-8" fr.1252 "convert -f windows-1252" "-f CP1252 -t UTF-8" "-f windows-1252 -t UTF-8"
run "UTF-8 → windows-1252" fr.utf8 "convert -c -t windows-1252" "-c -f UTF-8 -t CP1252" "-c -f UTF-8 -t windows-1252"
run "KOI8-R → UTF-8" ru.koi8 "convert -f koi8-r" "-f KOI8-R -t UTF-8" "-f KOI8-R -t UTF-8"
run "UTF-8 → KOI8-R" ru.utf8 "convert -c -t koi8-r" "-c -f UTF-8 -t KOI8-R" "-c -f UTF-8 -t KOI8-R"
run "UTF-8 → UTF-8" ja.utf8 "convert" "-f UTF-8 -t UTF-8" "-f UTF-8 -t UTF-8"

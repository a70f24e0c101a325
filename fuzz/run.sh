#!/usr/bin/env bash
# Runs each fuzz target for a bounded time: fuzz/run.sh [SECONDS_PER_TARGET] [JOBS]
#
# Each run starts from the shipped seeds (fuzz/seeds/<target>, made by fuzz/seed.py),
# the reproducers of past findings (fuzz/repro/<target>) and the local corpus
# (fuzz/corpus/<target>, where new inputs go; not committed).
# Crashes go to fuzz/artifacts/<target>/.
#
# Environment:
#   TARGETS="decode encode"  the targets to run (default: every file in fuzz_targets/)
#   WHATENC_FUZZ_SKIP=a,b    skip the checks of findings already reported (README.md)
#   KEEP_GOING=1             libFuzzer's fork mode: go on after a crash and count them
#                            ("crashes: N" in the log) instead of stopping at the first
#
# Needs cargo-fuzz (`cargo install cargo-fuzz`) and the nightly toolchain for its
# instrumentation; the library itself builds on stable.
set -euo pipefail
cd "$(dirname "$0")"
seconds=${1:-60}
jobs=${2:-1}
targets=${TARGETS:-$(cd fuzz_targets && ls -- *.rs | sed 's/\.rs$//')}
failed=""
for target in $targets; do
  mkdir -p "corpus/$target"
  echo "== $target for ${seconds}s x $jobs job(s)"
  args=(-max_total_time="$seconds" -max_len=4096 -timeout=10 -print_final_stats=1)
  if [ -n "${KEEP_GOING:-}" ]; then
    args+=(-fork="$jobs" -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1)
  elif [ "$jobs" -gt 1 ]; then
    args+=(-jobs="$jobs" -workers="$jobs")
  fi
  dirs=("corpus/$target")
  for extra in seeds repro; do
    if [ -d "$extra/$target" ]; then dirs+=("$extra/$target"); fi
  done
  cargo +nightly fuzz run "$target" "${dirs[@]}" -- "${args[@]}" || failed="$failed $target"
done
if [ -n "$failed" ]; then
  echo "== crashes in:$failed (see fuzz/artifacts/)"
  exit 1
fi

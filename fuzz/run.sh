#!/usr/bin/env bash
# Runs each fuzz target for a bounded time: fuzz/run.sh [SECONDS_PER_TARGET] [JOBS]
# Needs cargo-fuzz (`cargo install cargo-fuzz`) and the nightly toolchain for its
# instrumentation; the library itself builds on stable.
set -euo pipefail
cd "$(dirname "$0")"
seconds=${1:-60}
jobs=${2:-1}
for target in decode encode; do
  mkdir -p corpus/$target
  echo "== $target for ${seconds}s x $jobs job(s)"
  cargo +nightly fuzz run "$target" corpus/$target -- -max_total_time="$seconds" -max_len=4096 -timeout=10 -jobs="$jobs" -workers="$jobs"
done

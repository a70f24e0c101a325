#!/usr/bin/env bash
# Runs the whole benchmark and writes BENCHMARKS.md: bash bench/run.sh [--filter TEXT]
# WHATENC_BENCH_MS and WHATENC_BENCH_REPS set the time per repetition and the count;
# a case whose whatenc / encoding_rs is below 1.25 runs WHATENC_BENCH_CONFIRM
# times as many again (default 2, 0 for none), the median taken over all;
# WHATENC_BENCH_OUT the report's file (BENCHMARKS.md unless set; another file gets the
# generated tables alone). `--rotate` measures with rotating inputs.
set -euo pipefail
cd "$(dirname "$0")/.."
fast=$(mktemp)
trap 'rm -f "$fast"' EXIT
# encoding_rs with `fast-legacy-encode` is a separate build, so the feature does not
# leak into the default-build measurements. It takes the same --filter.
cargo run --quiet --release -p whatenc-bench-fast-legacy -- "$@" > "$fast"
cargo run --quiet --release -p whatenc-bench --bin whatenc-bench -- --merge "$fast" --write "${WHATENC_BENCH_OUT:-BENCHMARKS.md}" "$@"

#!/usr/bin/env bash
# The benchmark on aarch64, counted instead of timed: bash bench/aarch64-insns.sh [ARGS]
#
# No aarch64 machine is at hand, so the benchmark is cross-built for
# aarch64-unknown-linux-gnu and run under qemu-user with a plugin
# (bench/qemu/insn_count.c) that counts the instructions the guest executes. Each
# implementation of a case makes one call on each of the 64 versions of the
# document between two marks, and its rate is bytes of input per thousand
# instructions executed. The counts are exact and repeatable; they are not time: a
# vector instruction and a scalar one count the same, and caches, latencies and
# mispredicted branches count for nothing. What they show is which code runs, the
# vector loops or the scalar ones, on whatenc's side and on its peers'.
#
# ARGS go to the benchmark: --filter TEXT, --op TEXT, --tier portable (the portable
# kernels instead of NEON). WHATENC_BENCH_OUT is the report's file (a scratch file
# unless set); the result lines go to stdout. With WHATENC_BENCH_BLOCKS=FILE, the
# plugin also writes there the blocks that each implementation ran, for
# bench/model.py's modelled cycles.
set -euo pipefail
cd "$(dirname "$0")/.."
bash .ci/aarch64-setup
plugin=target/insn_count.so
mkdir -p target
gcc -shared -fPIC -O2 -Wall -Wextra -o "$plugin" bench/qemu/insn_count.c
CARGO_TARGET_DIR=target/aarch64 cargo build --quiet --release -p whatenc-bench --bin whatenc-bench \
  --target aarch64-unknown-linux-gnu
counts=$(mktemp)
out=${WHATENC_BENCH_OUT:-$(mktemp --suffix=.md)}
trap 'rm -f "$counts"' EXIT
WHATENC_BENCH_INSNS="$counts" WHATENC_BENCH_REPS=1 WHATENC_BENCH_CONFIRM=0 \
  qemu-aarch64 -L /usr/aarch64-linux-gnu -plugin "$plugin,out=$counts${WHATENC_BENCH_BLOCKS:+,blocks=$WHATENC_BENCH_BLOCKS}" \
  target/aarch64/aarch64-unknown-linux-gnu/release/whatenc-bench --rotate --write "$out" "$@"
echo "report: $out" >&2

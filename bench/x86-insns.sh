#!/usr/bin/env bash
# The benchmark on an emulated x86_64 CPU, counted instead of timed:
#   bash bench/x86-insns.sh MODEL [ARGS]
#
# The host build runs under qemu-user's model of the CPU MODEL (`qemu-x86_64 -cpu
# help` lists them), with the plugin bench/qemu/insn_count.c counting the
# instructions executed, as bench/aarch64-insns.sh does for aarch64 (see there for
# what a count is and is not). Every implementation detects its kernels on the
# modelled CPU: with `Nehalem` (SSE4.2, no AVX) whatenc takes its SSSE3 tier and
# encoding_rs and simdutf8 their SSE4.2 kernels, as on such a machine; with
# `Haswell` (AVX2, no AVX-512) the AVX2 ones. On this machine, whose CPU has AVX2,
# the timed benchmark's capped tiers run against encoding_rs's AVX2 kernels; this
# gives the peers the kernels they would choose. The model is run without ERMS
# (`MODEL,-erms`): qemu counts each byte that `rep movsb` moves as an instruction,
# and the C library's `memcpy` takes `rep movsb` where the CPU has ERMS; without it,
# its vector loop, whose count means what the others' do.
#
# ARGS go to the benchmark (--filter TEXT, --op TEXT, --tier TIER). WHATENC_BENCH_OUT
# is the report's file (a scratch file unless set); the result lines go to stdout.
# With WHATENC_BENCH_BLOCKS=FILE, the plugin also writes there the blocks that each
# implementation ran, for bench/model.py's modelled cycles.
set -euo pipefail
cd "$(dirname "$0")/.."
model=${1:?usage: bash bench/x86-insns.sh MODEL [ARGS]}
shift
if ! command -v qemu-x86_64 > /dev/null; then
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq qemu-user > /dev/null
fi
plugin=target/insn_count.so
mkdir -p target
gcc -shared -fPIC -O2 -Wall -Wextra -o "$plugin" bench/qemu/insn_count.c
cargo build --quiet --release -p whatenc-bench --bin whatenc-bench
counts=$(mktemp)
out=${WHATENC_BENCH_OUT:-$(mktemp --suffix=.md)}
trap 'rm -f "$counts"' EXIT
WHATENC_BENCH_INSNS="$counts" WHATENC_BENCH_QEMU_CPU="$model" WHATENC_BENCH_REPS=1 WHATENC_BENCH_CONFIRM=0 \
  qemu-x86_64 -cpu "$model,-erms" -plugin "$plugin,out=$counts${WHATENC_BENCH_BLOCKS:+,blocks=$WHATENC_BENCH_BLOCKS}" \
  target/release/whatenc-bench --rotate --write "$out" "$@"
echo "report: $out" >&2

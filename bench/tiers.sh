#!/usr/bin/env bash
# Every tier of whatenc's kernels on this machine, in one run: bash bench/tiers.sh [DIR]
# For each tier (TIERS, default "avx512 avx2 ssse3 sse2 portable") it runs the whole
# benchmark with rotating inputs, capped at that tier (`--tier`), writes DIR/TIER.md
# (DIR defaults to a new directory under /tmp), skips a tier the CPU does not have,
# and prints one table: per tier, the geometric mean of whatenc / encoding_rs, the
# cases below 1.0, and the geometric mean of each operation; below AVX2, UTF-8
# validation and UTF-8 → String against simdutf8's SSE4.2 kernel too (encoding_rs
# validates with simdutf8, which runs AVX2 on an AVX2 CPU whatever whatenc's cap,
# and its SSE4.2 kernel on the CPUs of those tiers). WHATENC_BENCH_MS and
# WHATENC_BENCH_REPS set the time per repetition and the count, as for run.sh; extra
# arguments (such as --filter TEXT) go to each run.
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${1:-$(mktemp -d /tmp/whatenc-tiers.XXXXXX)}
shift || true
mkdir -p "$dir"
cargo build --quiet --release -p whatenc-bench --bin whatenc-bench
cpu=$(grep -m1 'model name' /proc/cpuinfo 2>/dev/null | cut -d: -f2- | sed 's/^ *//' || true)
echo "## Every tier, rotating inputs, one run"
echo
echo "- Machine: ${cpu:-unknown CPU}, $(nproc) cores; $(date -u '+%Y-%m-%d %H:%M UTC')"
echo "- Tables: $dir/TIER.md"
if [ -n "${RUSTFLAGS:-}" ]; then
  echo "- Built with RUSTFLAGS=\`$RUSTFLAGS\` (whatenc and its peers)"
fi
echo
echo "| tier | cases | geomean whatenc / encoding_rs | below 1.0 (of which the same work done the same way on both sides, as the tables say) | per operation (geomean, below 1.0 / cases) | UTF-8 validation and → String, whatenc / simdutf8 SSE4.2 |"
echo "|---|---:|---:|---:|---|---|"
for tier in ${TIERS:-avx512 avx2 ssse3 sse2 portable}; do
  out="$dir/$tier.md"
  ./target/release/whatenc-bench --rotate --tier "$tier" --write "$out" "$@" > "$dir/$tier.log" 2>&1
  # The tier that ran: a cap above what the CPU has runs the CPU's best one.
  ran=$(sed -n "s/^- whatenc's kernels: \([a-z0-9]*\) tier.*/\1/p" "$out")
  if [ "$ran" != "$tier" ]; then
    echo "| $tier | – | not on this CPU (it ran $ran) | – | – | – |"
    rm -f "$out"
    continue
  fi
  cases=$(sed -n 's/^- Cases: \([0-9]*\);.*/\1/p' "$out")
  mean=$(sed -n 's/^- Cases: .*\*\*\([0-9.]*\)\*\*.*/\1/p' "$out")
  below=$(sed -n 's/^- Cases where whatenc is slower than encoding_rs: \([0-9]*\).*/\1/p' "$out")
  same=$(sed -n 's/^  - of which the same work done the same way on both sides.*: \([0-9]*\)$/\1/p' "$out")
  below="$below${same:+ ($same the same work)}"
  ops=$(sed -n 's/^  - \([a-zA-Z0-9 &-]*\): geometric mean \([0-9.]*\), \([0-9]*\) of \([0-9]*\) below 1.0/\1 \2 (\3\/\4)/p' "$out" | paste -sd ';' - | sed 's/;/; /g')
  sse42=$(sed -n "s/^- The same at this tier, whatenc \/ simdutf8's SSE4.2 kernel ([^)]*): //p" "$out")
  echo "| $tier | $cases | **$mean** | $below | $ops | ${sse42:-–} |"
done

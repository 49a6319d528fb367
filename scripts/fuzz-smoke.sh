#!/usr/bin/env bash
# Builds the libFuzzer targets with clang and runs each for a bounded time (default 20 s) from
# the committed corpus; any crash, leak or sanitizer report fails. Needs Debian's clang and
# libclang-rt-14-dev.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-20}
cmake -S . -B build-fuzz -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_BUILD_TYPE=RelWithDebInfo -DPIPEPLAN_FUZZ=ON \
  -DPIPEPLAN_BUILD_TESTS=OFF -DPIPEPLAN_BUILD_BENCH=OFF -DPIPEPLAN_GPU=OFF >/dev/null
cmake --build build-fuzz -j "$(nproc)" --target fuzz_profile fuzz_schedule fuzz_result fuzz_csv fuzz_size fuzz_config fuzz_layout
for target in profile schedule result csv size config layout; do
  work=$(mktemp -d)
  cp fuzz/corpus/"$target"/* "$work"/
  echo "== fuzz_$target for ${seconds} s"
  ./build-fuzz/fuzz/fuzz_"$target" -max_total_time="$seconds" -max_len=4096 -rss_limit_mb=2048 -print_final_stats=0 \
    "$work" 2>&1 | tail -3
  rm -rf "$work"
done
echo "fuzz smoke: every target ran ${seconds} s without a finding"

#!/usr/bin/env bash
# Builds the libFuzzer targets with clang in build-sanitize/ (scripts/configure-sanitize.sh, which
# installs Debian's clang and libclang-rt-14-dev when missing) and runs each for a bounded time
# (default 20 s) from the committed corpus; any crash, leak, sanitizer report or out-of-memory
# fails, and the input that did it is kept in build-sanitize/fuzz-findings/. The mutations
# follow a fixed seed (default 1), so that CI's run is the same each time the code is; give
# another as the second argument (0: libFuzzer picks one) to explore further.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-20}
seed=${2:-1}
scripts/configure-sanitize.sh
cmake --build build-sanitize -j "$(nproc)" --target fuzz_profile fuzz_schedule fuzz_result fuzz_csv fuzz_size fuzz_config fuzz_layout
mkdir -p build-sanitize/fuzz-findings
for target in profile schedule result csv size config layout; do
  work=$(mktemp -d)
  cp fuzz/corpus/"$target"/* "$work"/
  echo "== fuzz_$target for ${seconds} s, seed ${seed}"
  ./build-sanitize/fuzz/fuzz_"$target" -max_total_time="$seconds" -seed="$seed" -max_len=4096 -rss_limit_mb=2048 \
    -print_final_stats=0 -artifact_prefix=build-sanitize/fuzz-findings/ "$work" 2>&1 | tail -3
  rm -rf "$work"
done
echo "fuzz smoke: every target ran ${seconds} s without a finding"

#!/usr/bin/env bash
# Configures build-sanitize/: clang with AddressSanitizer and UndefinedBehaviorSanitizer at -O1
# (the checks are the same as at -O0 and the suite runs several times faster), the library also
# instrumented for libFuzzer's coverage. One build serves the sanitized test suite and the fuzz
# targets (scripts/fuzz-smoke.sh), so CI compiles the library once for both.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v clang++ >/dev/null || ! dpkg-query -W -f='${Status}' libclang-rt-14-dev 2>/dev/null | grep -q "ok installed"; then
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends clang libclang-rt-14-dev >/dev/null
fi
cmake -S . -B build-sanitize -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG="-g -O1" \
  -DPIPEPLAN_SANITIZE=ON -DPIPEPLAN_FUZZ=ON -DPIPEPLAN_BUILD_BENCH=OFF -DPIPEPLAN_GPU=OFF >/dev/null

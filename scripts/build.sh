#!/usr/bin/env bash
# Configures and builds pipeplan into build/ (Release, warnings as errors). `--target NAME`
# (repeatable) builds only those targets, e.g. `--target pipeplan` for the command alone, without
# the tests, benchmarks and pipeplan-gpu; without it, everything. The other arguments go to
# CMake's configure step, e.g. -DPIPEPLAN_SANITIZE=ON.
set -euo pipefail
cd "$(dirname "$0")/.."
targets=()
configure=()
while [ $# -gt 0 ]; do
  case "$1" in
    --target) targets+=(--target "$2"); shift 2 ;;
    *) configure+=("$1"); shift ;;
  esac
done
cmake -S . -B "${PIPEPLAN_BUILD_DIR:-build}" -DCMAKE_BUILD_TYPE=Release "${configure[@]}" >/dev/null
cmake --build "${PIPEPLAN_BUILD_DIR:-build}" -j "$(nproc)" "${targets[@]}"

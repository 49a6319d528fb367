#!/usr/bin/env bash
# Configures and builds pipeplan into build/ (Release, warnings as errors). Extra arguments go
# to CMake's configure step, e.g. -DPIPEPLAN_SANITIZE=ON.
set -euo pipefail
cd "$(dirname "$0")/.."
cmake -S . -B "${PIPEPLAN_BUILD_DIR:-build}" -DCMAKE_BUILD_TYPE=Release "$@" >/dev/null
cmake --build "${PIPEPLAN_BUILD_DIR:-build}" -j "$(nproc)"

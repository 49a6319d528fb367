#!/usr/bin/env bash
# Installs what is missing, builds, and runs every test (unit tests and CLI tests) with ctest.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/build.sh
ctest --test-dir build --output-on-failure -j "$(nproc)"
# The playground (web/): built with emscripten and checked in headless Chromium against the
# command line just built; exit 77 is a skip, with its reason printed (no Chromium, no emscripten).
status=0
tests/web/run.sh build/pipeplan || status=$?
[ "$status" -eq 0 ] || [ "$status" -eq 77 ] || exit "$status"

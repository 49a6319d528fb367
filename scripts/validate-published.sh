#!/usr/bin/env bash
# Plans every published pre-training run with its configuration fixed and reports reach, fidelity
# and memory (scripts/validate-published.py; docs/validation.md, "Published pre-training runs").
# Builds build/pipeplan first when it is missing (only that target). Arguments go to the script,
# e.g. scripts/validate-published.sh -o report.md --json rows.json --require-reach 0.9
set -euo pipefail
cd "$(dirname "$0")/.."
pipeplan=${PIPEPLAN:-build/pipeplan}
if [[ ! -x $pipeplan ]]; then
  PIPEPLAN_BUILD_DIR=$(dirname "$pipeplan") scripts/build.sh -DPIPEPLAN_GPU=OFF -DPIPEPLAN_BUILD_BENCH=OFF --target pipeplan
fi
exec python3 scripts/validate-published.py --pipeplan "$pipeplan" "$@"

#!/usr/bin/env bash
# The main job on the bundled example: the seed's configuration (Llama-2-7B shapes cut to 4
# layers on 4x RTX 3090, 16 micro-batches), 1F1B against ZB-H1 and the seed's own ZB-H1 order.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/build.sh --target pipeplan  # the command alone: the tests build in run-tests.sh
./build/pipeplan compare --schedules 1f1b,zbh1,zbh1-paddle --stages 4 --microbatches 16 \
  --profile profiles/seed-llama2-7b-4layers-rtx3090.json

#!/usr/bin/env bash
# pipeplan-gpu without a GPU: a plain message and exit code 3, for info and calibrate alike; bad
# inputs, a driver too old for the runtime and a multi-process launch are failures (1), reported
# before any GPU is looked for. Skipped (77) on a machine that has one: scripts/gpu-check.sh is
# the test there. $2: the folder of the stand-in driver (tests/cli/fake_libcuda.cpp).
set -u
gpu=$1
fake_driver=${2:-}
if command -v nvidia-smi >/dev/null && nvidia-smi -L >/dev/null 2>&1; then exit 77; fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# expect CODE STDERR-PREFIX COMMAND...: the exit code and the start of stderr's first line.
expect() {
  local want=$1 prefix=$2
  shift 2
  local err code
  err=$("$@" 2>&1 >/dev/null)
  code=$?
  if [ "$code" -ne "$want" ] || [ "${err#"$prefix"}" = "$err" ]; then
    echo "FAIL: $*: exit $code (want $want), stderr: $err (want it to start with: $prefix)"
    exit 1
  fi
}
expect 3 "pipeplan-gpu: no GPU: " "$gpu" info
expect 3 "pipeplan-gpu: no GPU: " "$gpu" calibrate --model profiles/models/seed-llama2-7b-4layers.json --stages 4 --layers-per-stage 1
# Usage errors stay usage errors (2) and bad inputs invalid input (1), GPU or not.
expect 2 "pipeplan-gpu: error: --model is required" "$gpu" calibrate
echo '{"hidden_size": 64}' > "$tmp/bad.json"
expect 1 "pipeplan-gpu: error: " "$gpu" calibrate --model "$tmp/bad.json"
expect 1 "pipeplan-gpu: error: --tp 3: tensor parallelism must divide" "$gpu" calibrate --model profiles/models/llama-2-7b.json --tp 3
expect 1 "pipeplan-gpu: error: cannot read $tmp/none.json" "$gpu" replay "$tmp/none.json" --profile "$tmp/bad.json"
# Files and flags are checked before the GPU (issue 31, item 10): an output that is an input (a
# GPU machine would overwrite the calibration) or another output, a folder, a file that cannot
# be written, an unknown --gpu and a negative --device, with pipeplan's roles and exit codes.
"${gpu%-gpu}" generate --schedule 1f1b --stages 2 --microbatches 2 -o "$tmp/s.json" 2>/dev/null ||
  echo '{}' >"$tmp/s.json"
echo '{}' >"$tmp/cal.json"
expect 2 "pipeplan-gpu: error: -o $tmp/cal.json: the same file as --profile $tmp/cal.json" \
  "$gpu" replay "$tmp/s.json" --profile "$tmp/cal.json" -o "$tmp/cal.json"
expect 2 "pipeplan-gpu: error: --trace $tmp/x: the same file as -o $tmp/x" \
  "$gpu" replay "$tmp/s.json" --profile "$tmp/cal.json" -o "$tmp/x" --trace "$tmp/x"
expect 1 "pipeplan-gpu: error: cannot write $tmp: it is a directory" "$gpu" replay "$tmp/s.json" --profile "$tmp/cal.json" -o "$tmp"
expect 1 "pipeplan-gpu: error: cannot write $tmp/no/such/p.json: " \
  "$gpu" calibrate --model profiles/models/llama-2-7b.json -o "$tmp/no/such/p.json"
expect 2 "pipeplan-gpu: error: --gpu: unknown GPU 'tpu'" "$gpu" calibrate --model profiles/models/llama-2-7b.json --gpu tpu
expect 2 "pipeplan-gpu: error: --device: Value -1 not in range 0 to 1023" \
  "$gpu" calibrate --model profiles/models/llama-2-7b.json --device -1
# A layout whose stage count contradicts --stages: a usage error, before the GPU (fails before
# the fix: exit 3). The seed model has 4 layers: E,t*2|t*2,H is 2 stages.
expect 2 "pipeplan-gpu: error: --layout has 2 stages but --stages is 4" \
  "$gpu" calibrate --model profiles/models/seed-llama2-7b-4layers.json --stages 4 --layout 'E,t*2|t*2,H'
expect 3 "pipeplan-gpu: no GPU: " \
  "$gpu" calibrate --model profiles/models/seed-llama2-7b-4layers.json --stages 2 --layout 'E,t*2|t*2,H'
# NaN and infinity by the one check of every floating flag (model/finite.hpp): CLI11's range
# check let --watchdog nan reach the GPU check.
expect 2 "pipeplan-gpu: error: --watchdog: expected a number from 1 to 86400, got 'nan'" \
  "$gpu" replay "$tmp/s.json" --profile "$tmp/cal.json" --watchdog nan
expect 2 "pipeplan-gpu: error: --watchdog: expected a number from 1 to 86400, got 'inf'" \
  "$gpu" replay "$tmp/s.json" --profile "$tmp/cal.json" --watchdog inf
# The check leaves nothing behind where it would write.
expect 3 "pipeplan-gpu: no GPU: " "$gpu" calibrate --model profiles/models/llama-2-7b.json -o "$tmp/p.json"
[ ! -e "$tmp/p.json" ] || { echo "FAIL: the early check left $tmp/p.json"; exit 1; }
# torchrun, Slurm or MPI would start several copies on one host's GPUs: refused.
expect 1 "pipeplan-gpu: error: WORLD_SIZE=2: pipeplan-gpu runs as one process per host" env WORLD_SIZE=2 "$gpu" info
expect 1 "pipeplan-gpu: error: SLURM_NTASKS=4: " env SLURM_NTASKS=4 "$gpu" info
expect 3 "pipeplan-gpu: no GPU: " env WORLD_SIZE=1 "$gpu" info
# A driver for CUDA 12.4 under a program built with CUDA 13: which driver, which is needed.
if [ -n "$fake_driver" ]; then
  expect 1 "pipeplan-gpu: error: the driver supports CUDA 12.4, but pipeplan-gpu was built with CUDA 13" \
    env LD_LIBRARY_PATH="$fake_driver" "$gpu" info
fi
echo "ok: pipeplan-gpu says there is no GPU (exit 3), and bad inputs, old drivers and multi-process launches fail (1)"

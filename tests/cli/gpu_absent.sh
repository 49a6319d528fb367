#!/usr/bin/env bash
# pipeplan-gpu without a GPU: a plain message and exit code 3, for info and calibrate alike.
# Skipped (77) on a machine that has one: scripts/gpu-check.sh is the test there.
set -u
gpu=$1
if command -v nvidia-smi >/dev/null && nvidia-smi -L >/dev/null 2>&1; then exit 77; fi
for args in "info" "calibrate --model profiles/models/seed-llama2-7b-4layers.json --stages 4 --layers-per-stage 1"; do
  # shellcheck disable=SC2086
  err=$("$gpu" $args 2>&1 >/dev/null)
  code=$?
  if [ "$code" -ne 3 ] || ! grep -q "^pipeplan-gpu: no GPU: " <<<"$err"; then
    echo "FAIL: pipeplan-gpu $args: exit $code, stderr: $err"
    exit 1
  fi
done
# Usage errors stay usage errors (2) and bad configs invalid input (1), GPU or not.
"$gpu" calibrate >/dev/null 2>&1; [ $? -eq 2 ] || { echo "FAIL: calibrate without --model should exit 2"; exit 1; }
echo '{"hidden_size": 64}' > "${TMPDIR:-/tmp}/pipeplan-gpu-bad.json"
"$gpu" calibrate --model "${TMPDIR:-/tmp}/pipeplan-gpu-bad.json" >/dev/null 2>&1
code=$?
rm -f "${TMPDIR:-/tmp}/pipeplan-gpu-bad.json"
[ $code -eq 1 ] || { echo "FAIL: a bad config should exit 1, got $code"; exit 1; }
echo "ok: pipeplan-gpu says there is no GPU (exit 3)"

#!/usr/bin/env bash
# One call on a machine with GPUs (docs/gpu.md): build pipeplan and pipeplan-gpu, list the
# devices, calibrate Llama-2-7B's layer on them, replay 1F1B (and ZB-H1 with two GPUs or more)
# with the measured profile, and print a short table last. Within 8 minutes on one GPU. Files go
# to $OUT (the device tool's folder) or a fresh temporary folder.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-$(mktemp -d)}
mkdir -p "$out"
cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DPIPEPLAN_BUILD_TESTS=OFF -DPIPEPLAN_BUILD_BENCH=OFF >/dev/null
cmake --build build-gpu -j "$(nproc)" --target pipeplan pipeplan-gpu >/dev/null
gpu=build-gpu/pipeplan-gpu
pp=build-gpu/pipeplan

"$gpu" info | tee "$out/info.txt"
devices=$(grep -c '^device ' "$out/info.txt")
stages=$(( devices < 8 ? devices : 8 ))
settings=(--model profiles/models/llama-2-7b.json --seq 2048 --micro-batch 1 --dtype bf16)

echo "== calibrate: $stages stage(s) of 2 layers"
timeout 240 "$gpu" calibrate "${settings[@]}" --stages "$stages" --layers-per-stage 2 --repetitions 20 \
  -o "$out/profile.json" | tee "$out/calibrate.txt"

schedules=(1f1b)
[ "$stages" -ge 2 ] && schedules+=(zbh1)
for s in "${schedules[@]}"; do
  "$pp" generate --schedule "$s" --stages "$stages" --microbatches $((2 * stages)) -o "$out/$s.json"
  echo "== replay $s"
  timeout 120 "$gpu" replay "$out/$s.json" --profile "$out/profile.json" -o "$out/replay-$s.json" \
    --trace "$out/replay-$s-trace.json" | tee "$out/replay-$s.txt"
done

echo "== summary"
grep -m1 '^device 0' "$out/info.txt"
grep '^layer F/B/W' "$out/calibrate.txt"
grep '^transfer' "$out/calibrate.txt"
for s in "${schedules[@]}"; do printf '%-6s ' "$s"; grep '^makespan' "$out/replay-$s.txt"; done

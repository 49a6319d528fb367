#!/usr/bin/env bash
# One call on a machine with GPUs (docs/gpu.md): build pipeplan and pipeplan-gpu (or take the
# programs scripts/gpu-bundle.sh built elsewhere, from build-gpu-bundle/), list the devices,
# calibrate Llama-2-7B's layer on them, replay 1F1B (and ZB-H1 with two GPUs or more) with the
# measured profile, and print a short table last. Within 8 minutes on one GPU. What comes back
# is two files in $OUT (the device tool's folder, which returns 8 at most) or a fresh temporary
# folder: summary.txt and gpu-check.tar.gz, every file of the run, written even when a step fails.
set -euo pipefail
cd "$(dirname "$0")/.."
dest=${OUT:-$(mktemp -d)}
mkdir -p "$dest"
out=$(mktemp -d)
pack() {
  tar -czf "$dest/gpu-check.tar.gz" -C "$out" . 2>/dev/null || true
  [ -f "$out/summary.txt" ] && cp "$out/summary.txt" "$dest/summary.txt"
  echo "== files: $dest/gpu-check.tar.gz (every file of the run), $dest/summary.txt"
}
trap pack EXIT
# NCCL says why it fails (and only then) on stderr, which the logs keep.
export NCCL_DEBUG=${NCCL_DEBUG:-WARN}
if [ -x build-gpu-bundle/pipeplan-gpu ] && [ -x build-gpu-bundle/pipeplan ]; then
  bin=build-gpu-bundle
  echo "== using the programs carried in $bin"
else
  cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DPIPEPLAN_BUILD_TESTS=OFF -DPIPEPLAN_BUILD_BENCH=OFF >/dev/null
  cmake --build build-gpu -j "$(nproc)" --target pipeplan pipeplan-gpu >/dev/null
  bin=build-gpu
fi
gpu=$bin/pipeplan-gpu
pp=$bin/pipeplan

# The libraries the programs load: the bundle's own (fmt), the CUDA toolkit's, and where the
# toolkit lacks one, the copy a Python wheel brought (PyTorch's nvidia-* packages).
paths=$bin:/usr/local/cuda/lib64:/usr/local/cuda/lib
for lib in libcublas.so.13 libcublasLt.so.13 libnccl.so.2; do  # cudart is linked in
  if [ ! -e "/usr/local/cuda/lib64/$lib" ] && [ ! -e "/usr/local/cuda/lib/$lib" ]; then
    found=$(find /usr/local /opt /usr/lib -name "$lib" 2>/dev/null | head -1 || true)
    [ -n "$found" ] && paths=$paths:$(dirname "$found")
  fi
done
export LD_LIBRARY_PATH=$paths${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
if ldd "$gpu" | grep 'not found'; then
  echo "gpu-check: $gpu cannot load the libraries above (LD_LIBRARY_PATH=$LD_LIBRARY_PATH)" >&2
  exit 1
fi

"$gpu" info | tee "$out/info.txt"
devices=$(grep -c '^device ' "$out/info.txt")
stages=$(( devices < 8 ? devices : 8 ))
settings=(--model profiles/models/llama-2-7b.json --seq 2048 --micro-batch 1 --dtype bf16)

echo "== calibrate: $stages stage(s) of 2 layers"
timeout 240 "$gpu" calibrate "${settings[@]}" --stages "$stages" --layers-per-stage 2 --repetitions 20 \
  -o "$out/profile.json" 2>&1 | tee "$out/calibrate.txt"

schedules=(1f1b)
[ "$stages" -ge 2 ] && schedules+=(zbh1)
for s in "${schedules[@]}"; do
  "$pp" generate --schedule "$s" --stages "$stages" --microbatches $((2 * stages)) -o "$out/$s.json"
  echo "== replay $s"
  timeout 120 "$gpu" replay "$out/$s.json" --profile "$out/profile.json" -o "$out/replay-$s.json" \
    --trace "$out/replay-$s-trace.json" --watchdog 100 2>&1 | tee "$out/replay-$s.txt"
done

{
  echo "== summary"
  grep -m1 '^device 0' "$out/info.txt"
  grep '^layer F/B/W' "$out/calibrate.txt"
  grep '^transfer' "$out/calibrate.txt"
  grep -m1 '^prediction' "$out/replay-1f1b.txt" || true
  for s in "${schedules[@]}"; do
    printf '%-6s ' "$s"
    grep '^makespan' "$out/replay-$s.txt"
  done
} | tee "$out/summary.txt"

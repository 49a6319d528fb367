#!/usr/bin/env bash
# Predicts the zero-bubble paper's main experiment (Qi et al., "Zero Bubble Pipeline
# Parallelism", ICLR 2024, Tables 3 and 4: GPT models on A100 SXM 80 GB, 8 per node, RoCE
# between nodes) and prints predicted against measured throughput, samples per GPU per second,
# as a Markdown table (docs/validation.md). Their settings: pipeline parallelism alone (tp 1,
# dp 1), sequence 1024, fp16, Megatron-LM without flash attention, dropouts on; 1F1B-I with
# one layer per chunk; ZB-1p and ZB-2p with optimizer post-validation. The costs are
# pipeplan's defaults; nothing here is fitted to the measured column.
# Usage: scripts/zb-paper-table4.sh [path to pipeplan] (default build/pipeplan)
set -euo pipefail
cd "$(dirname "$0")/.."
pipeplan=${1:-build/pipeplan}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# model, GPUs, micro-batch size, micro-batch counts, then the measured samples/GPU/s of
# 1F1B, 1F1B-I, ZB-1p, ZB-2p at each count (Table 4).
rows=(
  "1.5b 8 6 24,32,64 11.8,12.5,13.6 13.1,13.4,13.9 12.9,13.4,14.2 14.5,14.8,14.9"
  "6.2b 8 3 24,32,64 3.50,3.70,4.03 4.01,4.08,4.19 3.88,4.00,4.20 4.32,4.35,4.39"
  "14.6b 16 1 48,64,128 1.40,1.49,1.64 1.54,1.59,1.66 1.61,1.67,1.76 1.81,1.83,1.85"
  "28.3b 32 1 96,128,256 0.76,0.80,0.88 0.82,0.85,0.90 0.87,0.90,0.96 0.99,1.00,1.00"
)

# The step of one schedule from a profile: compare's JSON row.
step_ms() {
  local profile=$1 schedule=$2 devices=$3 microbatches=$4 chunks=$5 mode=$6
  "$pipeplan" compare --schedules "$schedule" --stages "$devices" --chunks "$chunks" --microbatches "$microbatches" \
    --profile "$profile" --optimizer-mode "$mode" --json |
    python3 -c 'import json, sys; print(json.load(sys.stdin)["rows"][0]["step_ms"])'
}

echo "| model | GPUs | M | 1F1B | 1F1B-I | ZB-1p | ZB-2p | predicted / measured (1F1B, 1F1B-I, ZB-1p, ZB-2p) | ZB-1p over 1F1B-I, measured / predicted |"
echo "|---|---|---|---|---|---|---|---|---|"
for row in "${rows[@]}"; do
  read -r model gpus mb counts m1 mi mz1 mz2 <<<"$row"
  config=profiles/models/zb-gpt-$model.json
  layers=$(python3 -c "import json; print(json.load(open('$config'))['n_layer'])")
  chunks=$(((layers + gpus - 1) / gpus)) # one layer per chunk, as their 1F1B-I ran
  common=(--model "$config" --gpu a100-80gb --seq 1024 --micro-batch "$mb" --dtype fp16 --no-flash-attention
    --stages "$gpus")
  "$pipeplan" profile "${common[@]}" -o "$work/one.json"
  "$pipeplan" profile "${common[@]}" --chunks "$chunks" -o "$work/chunks.json"
  IFS=, read -r -a ms <<<"$counts"
  for i in 0 1 2; do
    M=${ms[$i]}
    s1=$(step_ms "$work/one.json" 1f1b "$gpus" "$M" 1 sync)
    si=$(step_ms "$work/chunks.json" interleaved "$gpus" "$M" "$chunks" sync)
    sz1=$(step_ms "$work/one.json" zb-1p "$gpus" "$M" 1 post-validation)
    sz2=$(step_ms "$work/one.json" zb-2p "$gpus" "$M" 1 post-validation)
    python3 - "$model" "$gpus" "$M" "$mb" "$i" "$s1" "$si" "$sz1" "$sz2" "$m1" "$mi" "$mz1" "$mz2" <<'EOF'
import sys
model, gpus, M, mb, i = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
steps = [float(x) for x in sys.argv[6:10]]
measured = [float(x.split(",")[i]) for x in sys.argv[10:14]]
predicted = [M * mb / gpus / (s / 1000) for s in steps]
ratios = ", ".join(f"{p / m:.2f}" for p, m in zip(predicted, measured))
cells = " | ".join(f"{p:.2f} ({m:g})" for p, m in zip(predicted, measured))
gain = f"{measured[2] / measured[1] - 1:+.1%} / {predicted[2] / predicted[1] - 1:+.1%}"
print(f"| {model} | {gpus} | {M} | {cells} | {ratios} | {gain} |")
EOF
  done
done

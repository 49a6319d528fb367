#!/usr/bin/env bash
# Predicts the zero-bubble paper's main experiment (Qi et al., "Zero Bubble Pipeline
# Parallelism", ICLR 2024, Tables 3 and 4: GPT models on A100 SXM 80 GB, 8 per node, RoCE
# between nodes) and prints predicted against measured throughput, samples per GPU per second,
# as two Markdown tables (docs/validation.md). Their settings: pipeline parallelism alone (tp 1,
# dp 1), sequence 1024, fp16, Megatron-LM without flash attention, dropouts on; 1F1B-I with
# one layer per chunk; ZB-1p and ZB-2p with optimizer post-validation.
#
# The first table times each schedule on pipeplan's cost model, its defaults; nothing here is
# fitted to the measured column. The second times the same schedules on the paper's own
# profile of a stage (its Table 5: F, B, W and one transfer, every stage alike, as their
# scheduler takes them), so that it judges the schedules and the simulator apart from the costs.
# Usage: scripts/zb-paper-table4.sh [path to pipeplan] (default build/pipeplan)
set -euo pipefail
cd "$(dirname "$0")/.."
pipeplan=${1:-build/pipeplan}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# model, GPUs, micro-batch size, micro-batch counts, the measured samples/GPU/s of 1F1B,
# 1F1B-I, ZB-1p, ZB-2p at each count (Table 4), then Table 5's profiled F, B, W and transfer
# in ms (the values tests/zb_objective_test.cpp and docs/schedules.md take).
rows=(
  "1.5b 8 6 24,32,64 11.8,12.5,13.6 13.1,13.4,13.9 12.9,13.4,14.2 14.5,14.8,14.9 18.522,18.086,9.337 0.601"
  "6.2b 8 3 24,32,64 3.50,3.70,4.03 4.01,4.08,4.19 3.88,4.00,4.20 4.32,4.35,4.39 29.718,29.444,19.927 0.527"
  "14.6b 16 1 48,64,128 1.40,1.49,1.64 1.54,1.59,1.66 1.61,1.67,1.76 1.81,1.83,1.85 11.347,11.248,8.132 0.377"
  "28.3b 32 1 96,128,256 0.76,0.80,0.88 0.82,0.85,0.90 0.87,0.90,0.96 0.99,1.00,1.00 10.419,10.207,7.715 0.408"
)

# How each schedule's runtime posts its transfers, read in their fork at tag zero-bubble-v0.1.0.
# Its 1F1B (schedules.py, forward_backward_pipelining_without_interleaving) sends and receives
# through p2p_communication._communicate with batch_p2p_comm on (the default whenever
# overlap_p2p_comm is off, which arguments.py forces without interleaving): one
# batch_isend_irecv, a wait on every request, then torch.cuda.synchronize(), so the transfers
# hold both ends' compute streams, batched as Megatron posts them. 1F1B-I runs with
# overlap_p2p_comm (--no-overlap-p2p-communication is a store_false flag: on unless turned off)
# and ZB-1p and ZB-2p with zb_schedules.py's fused_pipeline_ops, waited only before the op that
# consumes the received tensor: both overlapped, pipeplan's default.
megatron_1f1b=(--comm blocking --policy batched)

# The step of one schedule: compare's JSON row. The rest of the arguments are compare's.
step_ms() {
  "$pipeplan" compare "$@" --json | python3 -c 'import json, sys; print(json.load(sys.stdin)["rows"][0]["step_ms"])'
}

# One table row, and its ratios appended to $work/<table>.ratios for the summary.
print_row() {
  python3 - "$@" <<'EOF'
import sys
table, model, gpus, M, mb, i = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5]), int(sys.argv[6])
steps = [float(x) for x in sys.argv[7:11]]
measured = [float(x.split(",")[i]) for x in sys.argv[11:15]]
predicted = [M * mb / gpus / (s / 1000) for s in steps]
ratios = [p / m for p, m in zip(predicted, measured)]
cells = " | ".join(f"{p:.2f} ({m:g})" for p, m in zip(predicted, measured))
gain = f"{measured[2] / measured[1] - 1:+.1%} / {predicted[2] / predicted[1] - 1:+.1%}"
print(f"| {model} | {gpus} | {M} | {cells} | {', '.join(f'{r:.2f}' for r in ratios)} | {gain} |")
with open(table, "a") as f:
    f.write(" ".join(f"{r:.6f}" for r in ratios) + "\n")
EOF
}

# Mean absolute error of each schedule's ratios and of all of them.
summary() {
  python3 - "$1" <<'EOF'
import sys
rows = [[float(x) for x in line.split()] for line in open(sys.argv[1])]
names = ["1F1B", "1F1B-I", "ZB-1p", "ZB-2p"]
mae = lambda rs: sum(abs(r - 1) for r in rs) / len(rs)
parts = [f"{n} {mae([r[k] for r in rows]):.1%}" for k, n in enumerate(names)]
print(f"\nMean absolute error over the {len(rows) * 4} cells: {mae([x for r in rows for x in r]):.1%} ({', '.join(parts)}).")
EOF
}

# One table row: the four schedules at one micro-batch count, each on the costs in `one` (a
# stage per device) or `chunked` (1F1B-I's chunks), with the row's settings in the loop's
# variables (model gpus M mb i chunks and the measured m1 mi mz1 mz2); its ratios to table $1.
time_row() {
  local run=(--stages "$gpus" --microbatches "$M")
  local s1 si sz1 sz2
  s1=$(step_ms --schedules 1f1b "${run[@]}" "${one[@]}" "${megatron_1f1b[@]}")
  si=$(step_ms --schedules interleaved "${run[@]}" --chunks "$chunks" "${chunked[@]}")
  sz1=$(step_ms --schedules zb-1p "${run[@]}" "${one[@]}" --optimizer-mode post-validation)
  sz2=$(step_ms --schedules zb-2p "${run[@]}" "${one[@]}" --optimizer-mode post-validation)
  print_row "$1" "$model" "$gpus" "$M" "$mb" "$i" "$s1" "$si" "$sz1" "$sz2" "$m1" "$mi" "$mz1" "$mz2"
}

header() {
  echo "| model | GPUs | M | 1F1B | 1F1B-I | ZB-1p | ZB-2p | predicted / measured (1F1B, 1F1B-I, ZB-1p, ZB-2p) | ZB-1p over 1F1B-I, measured / predicted |"
  echo "|---|---|---|---|---|---|---|---|---|"
}

echo "### On pipeplan's cost model"
echo
header
for row in "${rows[@]}"; do
  read -r model gpus mb counts m1 mi mz1 mz2 _ _ <<<"$row"
  config=profiles/models/zb-gpt-$model.json
  layers=$(python3 -c "import json; print(json.load(open('$config'))['n_layer'])")
  chunks=$(((layers + gpus - 1) / gpus)) # one layer per chunk, as their 1F1B-I ran
  common=(--model "$config" --gpu a100-80gb --seq 1024 --micro-batch "$mb" --dtype fp16 --no-flash-attention
    --stages "$gpus")
  "$pipeplan" profile "${common[@]}" -o "$work/one.json"
  "$pipeplan" profile "${common[@]}" --chunks "$chunks" -o "$work/chunks.json"
  one=(--profile "$work/one.json")
  chunked=(--profile "$work/chunks.json")
  IFS=, read -r -a ms <<<"$counts"
  for i in 0 1 2; do
    M=${ms[$i]}
    time_row "$work/model.ratios"
  done
done
summary "$work/model.ratios"

echo
echo "### On the paper's profile of a stage (Table 5)"
echo
header
for row in "${rows[@]}"; do
  read -r model gpus mb counts m1 mi mz1 mz2 fbw transfer <<<"$row"
  config=profiles/models/zb-gpt-$model.json
  # The paper's activation memory per token and layer (its Table 1, 16-bit, no recompute):
  # a_F = 34h + 5as and a_W = 32h at sequence 1024; the ZB schedules' limits are multiples of
  # the 1F1B peak, so only the ratio matters.
  read -r layers memory < <(python3 -c "import json; c = json.load(open('$config')); h, a = c['n_embd'], c['n_head']; print(c['n_layer'], f'{34 * h + 5 * a * 1024},{32 * h}')")
  chunks=$(((layers + gpus - 1) / gpus))
  # A stage's costs, every stage alike; under --chunks compare splits them over the chunks.
  one=(--costs "$fbw" --transfer "$transfer" --memory "$memory")
  chunked=("${one[@]}")
  IFS=, read -r -a ms <<<"$counts"
  for i in 0 1 2; do
    M=${ms[$i]}
    time_row "$work/profile.ratios"
  done
done
summary "$work/profile.ratios"

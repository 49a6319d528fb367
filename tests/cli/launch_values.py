#!/usr/bin/env python3
"""`plan --launch` against the row it launches (issue 32, docs/launch.md).

  launch_values.py PIPEPLAN TMPDIR -- PLAN_ARGS...

Runs `PIPEPLAN plan PLAN_ARGS --launch megatron -o TMPDIR/m.json` and the same for torchtitan,
reads the first row from the JSON each wrote, and checks that what the launch says equals the
row: tensor, pipeline, context and expert parallelism, expert tensor parallelism, the virtual
stages, the micro-batch, the global batch, recompute and sharding. The Megatron-LM arguments are
parsed as a shell would split them; the torchtitan config with tomllib (it must parse as TOML).
Every flag and key must be on the pinned lists, tests/data/launch/*.txt. Where the launch says a
setting is "not as planned", the framework's documented closest is expected (docs/launch.md):
torchtitan runs FSDP2 for ZeRO-1 and ZeRO-2, and whenever cp > 1 or ep > 1.
"""
import json
import os
import re
import shlex
import subprocess
import sys
import tomllib

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "..", "data", "launch")


def names(file):
    with open(os.path.join(DATA, file)) as f:
        return {line.strip() for line in f if line.strip() and not line.startswith("#")}


def run(pipeplan, args):
    done = subprocess.run([pipeplan, "plan", *args], capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"pipeplan plan {' '.join(args)} exited {done.returncode}: {done.stderr}")
    return done.stdout


def megatron_stages(layout):
    """Megatron's own reading (pipeline_parallel_layer_layout.py, parse_str_to_list): commas go,
    (...)*n and then x*n unroll, '|' splits the stages."""
    unrolled = layout.replace(",", "")
    unrolled = re.sub(r"\(([^)]+)\)\*(\d+)", lambda m: m.group(1) * int(m.group(2)), unrolled)
    unrolled = re.sub(r"(.)\*(\d+)", lambda m: m.group(1) * int(m.group(2)), unrolled)
    return unrolled.split("|")


def check(what, got, want, failures):
    if got != want:
        failures.append(f"{what}: the launch says {got!r}, the row {want!r}")


def megatron(pipeplan, tmp, args, failures):
    text = run(pipeplan, [*args, "--launch", "megatron", "-o", f"{tmp}/m.json"])
    with open(f"{tmp}/m.json") as f:
        row = json.load(f)["rows"][0]
    body = "\n".join(line for line in text.splitlines() if not line.startswith("#"))
    words = shlex.split(body.replace("\\\n", " "))
    flags, i = {}, 0
    while i < len(words):
        if not words[i].startswith("--"):
            failures.append(f"megatron: {words[i]!r} is not a flag")
        name = words[i]
        value = words[i + 1] if i + 1 < len(words) and not words[i + 1].startswith("--") else None
        flags[name] = value
        i += 2 if value is not None else 1
    known = names("megatron-args.txt")
    for name in flags:
        if name not in known:
            failures.append(f"megatron: {name} is not in megatron-args.txt")
    get = lambda flag, default: flags.get(flag) if flags.get(flag) is not None else default  # noqa: E731
    check("megatron tp", int(get("--tensor-model-parallel-size", 1)), row["tp"], failures)
    check("megatron pp", int(get("--pipeline-model-parallel-size", 1)), row["pp"], failures)
    check("megatron cp", int(get("--context-parallel-size", 1)), row["cp"], failures)
    check("megatron ep", int(get("--expert-model-parallel-size", 1)), row["ep"], failures)
    # Megatron sets the expert tensor parallelism to tp unless told (arguments.py).
    check("megatron etp", int(get("--expert-tensor-parallel-size", get("--tensor-model-parallel-size", 1))),
          row["etp"], failures)
    if "--pipeline-model-parallel-layout" in flags:
        stages = megatron_stages(flags["--pipeline-model-parallel-layout"])
        check("megatron layout", stages, megatron_stages(row["megatron_layout"]), failures)
        check("megatron layout characters", set("".join(stages)) <= set("EtmL"), True, failures)
        virtual = len(stages) // row["pp"]
    else:
        virtual = int(get("--num-virtual-stages-per-pipeline-rank", 1))
    check("megatron virtual stages", virtual, row["chunks"], failures)
    check("megatron micro-batch", int(flags["--micro-batch-size"]), row["micro_batch"], failures)
    check("megatron global batch", int(flags["--global-batch-size"]),
          row["dp"] * row["micro_batch"] * row["microbatches"], failures)
    recompute = {None: "none", "selective": "selective", "full": "full"}[flags.get("--recompute-granularity")]
    check("megatron recompute", recompute, row["recompute"], failures)
    if recompute == "full":
        check("megatron recompute method", (flags.get("--recompute-method"), flags.get("--recompute-num-layers")),
              ("uniform", "1"), failures)
    sharding = ("optimizer" if "--use-distributed-optimizer" in flags else
                {"optim_grads": "gradients", "optim_grads_params": "params"}.get(
                    flags.get("--data-parallel-sharding-strategy"), "none"))
    check("megatron sharding", sharding, row["sharding"], failures)
    check("megatron rank order", "--use-tp-pp-dp-mapping" in flags, row["rank_order"] == "tp-pp-dp", failures)
    check("megatron sequence parallel", "--sequence-parallel" in flags, row["tp"] > 1, failures)


def torchtitan(pipeplan, tmp, args, failures):
    text = run(pipeplan, [*args, "--launch", "torchtitan", "-o", f"{tmp}/t.json"])
    with open(f"{tmp}/t.json") as f:
        row = json.load(f)["rows"][0]
    config = tomllib.loads(text)
    known = names("torchtitan-keys.txt")

    def keys(table, prefix=""):
        for k, v in table.items():
            if isinstance(v, dict):
                yield from keys(v, prefix + k + ".")
            else:
                yield prefix + k

    for key in keys(config):
        if key not in known:
            failures.append(f"torchtitan: {key} is not in torchtitan-keys.txt")
    p = config["parallelism"]
    check("torchtitan tp", p["tensor_parallel_degree"], row["tp"], failures)
    check("torchtitan pp", p["pipeline_parallel_degree"], row["pp"], failures)
    check("torchtitan cp", p.get("context_parallel_degree", 1), row["cp"], failures)
    check("torchtitan ep", p.get("expert_parallel_degree", 1), row["ep"], failures)
    if row["ep"] > 1:
        check("torchtitan etp", p["expert_tensor_parallel_degree"], row["etp"], failures)
    dp = p.get("data_parallel_replicate_degree", 1) * p["data_parallel_shard_degree"]
    check("torchtitan dp", dp, row["dp"], failures)
    fsdp = row["sharding"] == "params" or (row["dp"] * row["cp"] > 1 and (
        row["sharding"] in ("optimizer", "gradients") or row["cp"] > 1 or row["ep"] > 1))
    check("torchtitan sharding (FSDP2 over dp)", p["data_parallel_shard_degree"] == row["dp"] and fsdp or
          p.get("data_parallel_replicate_degree", 1) == row["dp"] and not fsdp, True, failures)
    if fsdp and row["sharding"] != "params":
        check("torchtitan says the sharding is not as planned", "# not as planned: torchtitan" in text, True, failures)
    t = config["training"]
    check("torchtitan global batch", t["global_batch_size"], row["dp"] * row["micro_batch"] * row["microbatches"],
          failures)
    if row["pp"] > 1:
        check("torchtitan micro-batch", p["pipeline_parallel_microbatch_size"], row["micro_batch"], failures)
        check("torchtitan micro-batches", t["local_batch_size"] // p["pipeline_parallel_microbatch_size"],
              row["microbatches"], failures)
        stages = p.get("module_fqns_per_model_part")
        if stages is not None:
            check("torchtitan virtual stages", len(stages) // row["pp"], row["chunks"], failures)
            layers = [sum(1 for m in s if m.startswith("layers.")) for s in stages]
            want = [sum(int(x[2:]) if x.startswith("t*") else 1 if x == "t" else 0 for x in s.split(","))
                    for s in row["layout"].split("|")]
            check("torchtitan layers per stage", layers, want, failures)
    recompute = {"none": "none", "full": "full"}[config["activation_checkpoint"]["mode"]]
    check("torchtitan recompute", recompute, "full" if row["recompute"] == "selective" else row["recompute"], failures)


def main():
    if len(sys.argv) < 4 or sys.argv[3] != "--":
        sys.exit(__doc__)
    pipeplan, tmp, args = sys.argv[1], sys.argv[2], sys.argv[4:]
    failures = []
    megatron(pipeplan, tmp, args, failures)
    torchtitan(pipeplan, tmp, args, failures)
    if failures:
        sys.exit("\n".join(failures))
    print("launch values equal the row's")


if __name__ == "__main__":
    main()

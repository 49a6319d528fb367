#!/usr/bin/env python3
"""Runs the zero-bubble authors' own heuristic on random per-stage costs and writes what it
decided, for tests/zb_reference_test.cpp to hold pipeplan's port (lib/schedules/zb_paper_greedy.cpp)
to it without the network.

The heuristic is Graph.manual_order of zerobubble/scheduler/zb.py in
github.com/sail-sg/zero-bubble-pipeline-parallelism (megatron/core/pipeline_parallel/zerobubble/
scheduler/zb.py), run unchanged with its eight choices, as its initial_solution runs them. It is
read at run time out of a clone of that repository (a bare git directory works), nothing of it is
copied here. zb.py imports torch and pulp, for other functions than manual_order: both are replaced
by empty modules, so neither needs installing. graph.py (GraphConfig) is pure Python and loaded as is.

  scripts/zb-reference-diff.py --repo CLONE [--commit REV] [--cases N] [--seed S] [--out FILE]

Each case draws P in 2..32, M in 1..32, per-stage F, B, W (integers, B and W as ratios of F), an
activation and a W-held share per stage, one transfer of up to a fifth of the cheapest F (their
heuristic takes one communication time), a limit per device of 1P to 3P of that device's
activations, and with even odds a heavier last stage (an LM head: 1.2x to 2x its costs). Costs
are whole numbers, as floats (GraphConfig wants floats), so both sides compute exactly: the
test reads each as nanoseconds.

Output, one case a line (FILE; '#' lines are the header):
  P M comm ; F... ; B... ; W... ; A... ; AW... ; LIMIT... ; R0 ... R7
R_k is pass k, with k's bits as pipeplan's PaperGreedyChoices: 4 allow_bubble_before_first_b,
2 skip_forward_when_ahead (their prioritize_b), 1 fill_gap_when_within_worst (their
no_bubble_greedy). R_k is "SPAN:HASH" where their pass returned (SPAN the longest per-stage span,
their best_time; HASH the FNV-1a 64 of the per-stage orders written as f/b/w letters, stages joined
by '|'), "assert" where it failed one of its own assertions, "memory" where it raised "Cannot fit
memory", "unplaced" where it returned without putting every op (an op never put keeps order
index 0 and end time 0, which its assertions let through: its order and span mean nothing).
"""
import argparse
import random
import subprocess
import sys
import types

ZB = "megatron/core/pipeline_parallel/zerobubble/scheduler/zb.py"
GRAPH = "megatron/core/pipeline_parallel/zerobubble/scheduler/graph.py"


def git_show(repo, commit, path):
    return subprocess.run(["git", "--git-dir", repo, "show", f"{commit}:{path}"], check=True,
                          capture_output=True, text=True).stdout


def load_reference(repo, commit):
    """zb.py's module, with torch and pulp stubbed and graph.py loaded from the same commit."""
    for name in ["torch", "pulp"]:
        sys.modules.setdefault(name, types.ModuleType(name))
        sys.modules[name].Tensor = object
    package = "megatron.core.pipeline_parallel.zerobubble.scheduler"
    parts = package.split(".")
    for i in range(1, len(parts) + 1):
        sys.modules.setdefault(".".join(parts[:i]), types.ModuleType(".".join(parts[:i])))
    graph = types.ModuleType(package + ".graph")
    exec(compile(git_show(repo, commit, GRAPH), GRAPH, "exec"), graph.__dict__)
    sys.modules[package + ".graph"] = graph
    zb = types.ModuleType(package + ".zb")
    exec(compile(git_show(repo, commit, ZB), ZB, "exec"), zb.__dict__)
    return zb, graph


def fnv1a64(text):
    h = 0xCBF29CE484222325
    for byte in text.encode():
        h = ((h ^ byte) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return h


def draw(rng):
    p = rng.randint(2, 32)
    m = rng.randint(1, 32)
    base = rng.randint(500, 3000)
    f = [round(base * rng.uniform(0.6, 1.4)) for _ in range(p)]
    b = [round(x * rng.uniform(0.8, 2.2)) for x in f]
    w = [round(x * rng.uniform(0.4, 1.3)) for x in f]
    a = [rng.randint(60, 140) for _ in range(p)]
    aw = [round(x * rng.uniform(0.1, 0.6)) for x in a]
    if rng.random() < 0.5:  # a heavier last stage, as an LM head makes it
        k = rng.uniform(1.2, 2.0)
        f[-1], b[-1], w[-1], a[-1] = round(f[-1] * k), round(b[-1] * k), round(w[-1] * k), round(a[-1] * k)
        aw[-1] = min(a[-1], round(aw[-1] * k))
    comm = rng.randint(0, min(f) // 5)
    limit = [round(rng.uniform(p, 3 * p) * x) for x in a]
    return p, m, comm, f, b, w, a, aw, limit


def run_pass(zb, graph, case, bits):
    p, m, comm, f, b, w, a, aw, limit = case
    config = graph.GraphConfig(
        mem_f=[float(x) for x in a], mem_b=[float(y - x) for x, y in zip(a, aw)], mem_w=[float(-y) for y in aw],
        max_mem=[float(x) for x in limit], cost_f=[float(x) for x in f], cost_b=[float(x) for x in b],
        cost_w=[float(x) for x in w], cost_comm=float(comm), n_stages=p, n_micro=m)
    g = zb.Graph.build_graph(p, m, config)
    try:
        order, _, best = g.manual_order(allow_bubble_before_first_b=bool(bits & 4), prioritize_b=bool(bits & 2),
                                        no_bubble_greedy=bool(bits & 1))
    except AssertionError:
        return "assert"
    except ValueError as e:
        if "Cannot fit memory" not in str(e):
            raise
        return "memory"
    stages = []
    for s in range(p):
        ids = [g.get_id(k, s, mb) for k in range(3) for mb in range(m)]
        ids.sort(key=lambda i: order[i])
        if [order[i] for i in ids] != list(range(3 * m)):
            return "unplaced"  # ops it never put keep order 0 and pass every assertion
        stages.append("".join("fbw"[i // (p * m)] for i in ids))
    assert best == int(best)
    return f"{int(best)}:{fnv1a64('|'.join(stages)):016x}"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--repo", required=True, help="a clone (or bare git dir) of sail-sg/zero-bubble-pipeline-parallelism")
    ap.add_argument("--commit", default="HEAD")
    ap.add_argument("--cases", type=int, default=300)
    ap.add_argument("--seed", type=int, default=26)
    ap.add_argument("--out", default="-")
    args = ap.parse_args()
    commit = subprocess.run(["git", "--git-dir", args.repo, "rev-parse", args.commit], check=True,
                            capture_output=True, text=True).stdout.strip()
    zb, graph = load_reference(args.repo, commit)
    rng = random.Random(args.seed)
    lines = [
        "# The zero-bubble authors' heuristic (zb.py, Graph.manual_order, eight passes) on random costs,",
        f"# written by scripts/zb-reference-diff.py --cases {args.cases} --seed {args.seed} from",
        f"# sail-sg/zero-bubble-pipeline-parallelism commit {commit}.",
        "# P M comm ; F ; B ; W ; A ; AW ; LIMIT ; pass 0..7 (SPAN:HASH, assert, memory, unplaced); the script says more.",
    ]
    for _ in range(args.cases):
        case = draw(rng)
        p, m, comm = case[:3]
        results = [run_pass(zb, graph, case, bits) for bits in range(8)]
        fields = [f"{p} {m} {comm}"] + [" ".join(map(str, v)) for v in case[3:]] + [" ".join(results)]
        lines.append(" ; ".join(fields))
    text = "\n".join(lines) + "\n"
    if args.out == "-":
        sys.stdout.write(text)
    else:
        with open(args.out, "w", encoding="utf-8") as out:
            out.write(text)


if __name__ == "__main__":
    main()

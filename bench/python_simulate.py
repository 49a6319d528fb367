#!/usr/bin/env python3
"""Simulating the 786,432-op ZB-H1 file (P = 128, M = 2048, docs/performance.md's command bench)
from Python, against the whole `pipeplan simulate` process on the same file.

Issue 27 asks for Python at most 1.5 times the process. Each side is timed `--repeat` times and
its fastest run kept (the least disturbed by the other work on the machine). Python's side reads
the file and simulates it in one process that has already imported pipeplan (a training script
imports it once); it is timed with the op timeline (result.ops) and without it (timeline=False,
what the summary needs, as `pipeplan simulate` without --json keeps none).

  PYTHONPATH=build/python /usr/bin/python3 bench/python_simulate.py --cli build/pipeplan
"""

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pipeplan


def fastest(run, repeat):
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        run()
        best = min(best, time.perf_counter() - start)
    return best


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cli", default="build/pipeplan", help="the pipeplan command (default build/pipeplan)")
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        path = Path(scratch) / "zbh1-p128-m2048.json"
        subprocess.run([args.cli, "generate", "--schedule", "zbh1", "--stages", "128", "--microbatches", "2048",
                        "-o", str(path)], check=True)
        ops = pipeplan.load(path).op_count
        process = fastest(lambda: subprocess.run([args.cli, "simulate", str(path)], check=True,
                                                 stdout=subprocess.DEVNULL), args.repeat)
        summary = fastest(lambda: pipeplan.simulate(pipeplan.load(path), timeline=False), args.repeat)
        timeline = fastest(lambda: pipeplan.simulate(pipeplan.load(path)).ops, args.repeat)
    print(f"{ops:,} ops (ZB-H1, P = 128, M = 2048), fastest of {args.repeat}")
    print(f"pipeplan simulate (the process):          {process * 1e3:8.1f} ms")
    print(f"python load + simulate(timeline=False):   {summary * 1e3:8.1f} ms  ({summary / process:.2f}x)")
    print(f"python load + simulate + result.ops:      {timeline * 1e3:8.1f} ms  ({timeline / process:.2f}x)")
    return 0 if summary <= 1.5 * process else 1


if __name__ == "__main__":
    sys.exit(main())

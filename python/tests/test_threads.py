"""Long calls release the GIL: a Python thread keeps running while the library works. A call that
held the GIL would stop the thread for its whole length (CPython runs one thread's bytecode at a
time, and C++ holding the GIL never hands it over), so the ticks inside the call would be the one
or two of the moments around it, not the tens a free thread makes in each. scripts/mutate.sh's
`python-gil-held` puts one call's hold back, and this test is what fails."""

import threading
import time

import pytest

import pipeplan
from conftest import ROOT

GPT2 = ROOT / "tests" / "data" / "models" / "gpt2.json"  # 0.3 s of planning on 64 GPUs


def ticks_during(call, at_least=0.1):
    """How many times a second thread ticked (every millisecond or so) while `call` ran, how long
    it ran and how many times: it is called again until it has run `at_least` seconds in all, so
    that a machine fast enough to finish one call in a few milliseconds still gives a count to
    tell by. Only ticks inside a call count, not those between calls."""
    ticks, stop = [], threading.Event()

    def tick():
        while not stop.is_set():
            ticks.append(time.perf_counter())
            time.sleep(0.001)

    thread = threading.Thread(target=tick)
    thread.start()
    time.sleep(0.02)  # the ticker is under way
    spans = []
    while sum(end - start for start, end in spans) < at_least:
        start = time.perf_counter()
        call()
        spans.append((start, time.perf_counter()))
    stop.set()
    thread.join()
    inside = sum(any(start < t < end for start, end in spans) for t in ticks)
    return inside, sum(end - start for start, end in spans), len(spans)


@pytest.fixture(scope="module")
def large():
    # ZB-H1 at P = 64, M = 4096: 786,432 ops, the benchmark's size (bench/python_simulate.py).
    # from_json reads all of it: a quarter (196,608 ops) took 0.046 s on an idle machine, under
    # the 0.05 s the test needs to tell.
    schedule = pipeplan.generate("zbh1", 64, 4096)
    return schedule, schedule.to_json()


CALLS = {
    # 3,145,728 ops (four times the benchmark's): 0.03 s on an idle machine, called again
    # until 0.1 s have passed.
    "generate": lambda large: pipeplan.generate("zbh1", 64, 16384),
    "simulate": lambda large: pipeplan.simulate(large[0], timeline=False),
    "validate": lambda large: pipeplan.validate(large[0]),
    "from_json": lambda large: pipeplan.from_json(large[1]),
    "plan": lambda large: pipeplan.plan(GPT2, "h100", 64, 1024, 256, threads=1),
}


@pytest.mark.parametrize("name", CALLS)
def test_a_thread_runs_while_the_library_works(large, name):
    ticks, seconds, calls = ticks_during(lambda: CALLS[name](large))
    # A free thread ticks about once a millisecond, tens of times in each call; a held GIL allows
    # 2 at most a call (the moments at its ends), so at least 3 a call and 10 in all say it was let go.
    assert ticks >= max(10, 3 * calls), f"{name}: {ticks} ticks in {calls} calls of {seconds:.3f} s, the GIL was held"

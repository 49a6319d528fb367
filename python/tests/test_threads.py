"""Long calls release the GIL: a Python thread keeps running while the library works. A call that
held the GIL would stop the thread for its whole length (CPython runs one thread's bytecode at a
time, and C++ holding the GIL never hands it over), so the ticks inside the call would be the one
or two of the moments around it, not the hundreds of a call of 0.1 s or more. scripts/mutate.sh's
`python-gil-held` puts one call's hold back, and this test is what fails."""

import threading
import time

import pytest

import pipeplan
from conftest import ROOT

GPT2 = ROOT / "tests" / "data" / "models" / "gpt2.json"  # 0.3 s of planning on 64 GPUs


def ticks_during(call):
    """How many times a second thread ticked (every millisecond or so) while `call` ran, and how long it ran."""
    ticks, stop = [], threading.Event()

    def tick():
        while not stop.is_set():
            ticks.append(time.perf_counter())
            time.sleep(0.001)

    thread = threading.Thread(target=tick)
    thread.start()
    time.sleep(0.02)  # the ticker is under way
    start = time.perf_counter()
    call()
    end = time.perf_counter()
    stop.set()
    thread.join()
    return sum(start < t < end for t in ticks), end - start


@pytest.fixture(scope="module")
def large():
    # ZB-H1 at P = 64, M = 4096: 786,432 ops, the benchmark's size (bench/python_simulate.py).
    # from_json reads all of it: a quarter (196,608 ops) took 0.046 s on an idle machine, under
    # the 0.05 s the test needs to tell.
    schedule = pipeplan.generate("zbh1", 64, 4096)
    return schedule, schedule.to_json()


CALLS = {
    # 3,145,728 ops (four times the benchmark's): 0.047 s was seen for 786,432 on an idle
    # machine, too short to tell; this keeps several times the 0.05 s the test needs.
    "generate": lambda large: pipeplan.generate("zbh1", 64, 16384),
    "simulate": lambda large: pipeplan.simulate(large[0], timeline=False),
    "validate": lambda large: pipeplan.validate(large[0]),
    "from_json": lambda large: pipeplan.from_json(large[1]),
    "plan": lambda large: pipeplan.plan(GPT2, "h100", 64, 1024, 256, threads=1),
}


@pytest.mark.parametrize("name", CALLS)
def test_a_thread_runs_while_the_library_works(large, name):
    ticks, seconds = ticks_during(lambda: CALLS[name](large))
    assert seconds > 0.05, f"{name} took {seconds:.3f} s: too short to tell"
    # At least 10 ticks of the ~1 per ms a free thread makes: a held GIL allows 2 at most.
    assert ticks >= 10, f"{name}: {ticks} ticks in {seconds:.3f} s, the GIL was held"

"""The package's own behaviour: numbers derived by hand, the op columns, and errors that name
the argument as the command line names its flag."""

import pytest

import pipeplan


def test_1f1b_times_as_its_formula():
    # 1F1B with F = 1, BW = B + W = 2 + 1 ms and no transfers: every device runs M forwards and M
    # backwards, and the last forward of device P-1 waits for P-1 forwards before it, so the
    # makespan is (M + P - 1)(F + B + W) = (8 + 3) * 4 = 44 ms and each device is busy
    # M (F + B + W) = 32 ms (Narayanan et al. 2021, section 2.2: bubble (P-1)/(M+P-1) = 3/11).
    schedule = pipeplan.generate("1f1b", 4, 8)
    result = pipeplan.simulate(schedule, costs=(1, 2, 1))
    assert result.makespan_ms == pytest.approx(44.0)
    assert result.bubble_rate == pytest.approx(3 / 11)
    for device in result.devices:
        assert device["busy_ms"] == pytest.approx(32.0)
        assert device["idle_ms"] == pytest.approx(12.0)


def test_peak_memory_of_1f1b_device_0_holds_p_microbatches():
    # Device 0 of 1F1B runs P = 4 forwards before its first backward, so it holds 4 micro-batches'
    # activations at once: 4 * 1 GiB (the schedule's definition, docs/schedules.md).
    result = pipeplan.simulate(pipeplan.generate("1f1b", 4, 8), memory=("1GiB", "0"))
    assert result.devices[0]["peak_memory_bytes"] == 4 * 2**30
    assert result.devices[3]["peak_memory_bytes"] == 1 * 2**30


def test_op_columns_hold_every_op_with_its_cost():
    schedule = pipeplan.generate("zbh1", 2, 4)
    ops = pipeplan.simulate(schedule, costs=(1, 2, 3)).ops
    # 2 devices x 4 micro-batches x (F, B, W) = 24 ops, each as long as its kind costs.
    assert len(ops) == schedule.op_count == 24
    cost = {"F": 1.0, "B": 2.0, "W": 3.0}
    for i in range(len(ops)):
        kind = pipeplan.Ops.KINDS[int(ops.kind[i])]
        assert ops.end_ms[i] - ops.start_ms[i] == pytest.approx(cost[kind])


def test_order_lists_each_devices_ops():
    schedule = pipeplan.generate("gpipe", 2, 2)
    # GPipe: every F in micro-batch order, then every BW (docs/schedules.md's table).
    assert schedule.order[0] == [("F", 0, 0), ("F", 0, 1), ("BW", 0, 0), ("BW", 0, 1)]
    assert schedule.placement == [0, 1]


def test_validate_reports_a_memory_limit_overrun():
    schedule = pipeplan.generate("1f1b", 4, 8)
    # Device 0 peaks at 4 GiB (above), so a 3 GiB limit is exceeded there and nowhere with 4 GiB.
    problems = pipeplan.validate(schedule, memory=("1GiB", "0"), memory_limit="3GiB")
    assert [p["device"] for p in problems] == [0]
    assert pipeplan.validate(schedule, memory=("1GiB", "0"), memory_limit="4GiB") == []


def test_json_round_trips():
    schedule = pipeplan.generate("zbv", 4, 8)
    assert pipeplan.from_json(schedule.to_json()).to_json() == schedule.to_json()


def test_version_is_cmakes():
    assert pipeplan.__version__.count(".") == 2
    assert issubclass(pipeplan.Error, ValueError)


@pytest.mark.parametrize("call, names", [
    (lambda: pipeplan.generate("zbh", 4, 8), ["unknown schedule 'zbh'", "zbh1"]),
    (lambda: pipeplan.generate("1f1b", 4, 8, costs=(1, 2)), ["--costs"]),
    (lambda: pipeplan.generate("zb", 4, 8, costs=(1, 1, 1), memory_limit="lots"), ["--memory-limit", "lots"]),
    (lambda: pipeplan.generate("zb", 4, 8, costs=(1, 1, 1)), ["needs a memory limit"]),
    (lambda: pipeplan.generate("1f1b", 4, 8, costs=(1, 1, 1)), ["--costs", "built without costs"]),
    (lambda: pipeplan.generate("1f1b", 4, 8, chunks=2), ["--chunks 2"]),
    (lambda: pipeplan.generate("1f1b", 4, 8, iterations=2), ["--iterations", "automatic schedules"]),
    (lambda: pipeplan.generate("zbv", 0, 8), ["stages"]),
    (lambda: pipeplan.simulate(pipeplan.generate("1f1b", 2, 2), comm="fast"), ["--comm", "rendezvous"]),
    (lambda: pipeplan.simulate(pipeplan.generate("1f1b", 2, 2), optimizer_mode="x"), ["--optimizer-mode"]),
    (lambda: pipeplan.simulate(pipeplan.generate("1f1b", 2, 2), iterations=0), ["--iterations"]),
    (lambda: pipeplan.simulate(pipeplan.generate("1f1b", 2, 2), memory=("1GiB", "2GiB")), ["A_W"]),
    (lambda: pipeplan.simulate(pipeplan.generate("1f1b", 2, 2), transfer=[1, 2, 3]), ["--transfer"]),
    (lambda: pipeplan.simulate(pipeplan.generate("1f1b", 2, 2), policy="timed"), ["--policy"]),
    (lambda: pipeplan.from_json("{}"), ["<json>"]),
    (lambda: pipeplan.from_pytorch_csv("0F0,0X1\n"), ["<csv>", "row 1"]),
    (lambda: pipeplan.load("/nonexistent/s.json"), ["/nonexistent/s.json"]),
])
def test_errors_name_the_argument(call, names):
    with pytest.raises(pipeplan.Error) as caught:
        call()
    for name in names:
        assert name in str(caught.value)


def test_gpus_are_the_catalog():
    names = [g["name"] for g in pipeplan.gpus()]
    assert "h100" in names and len(names) == len(set(names))
    # Every card has a host link to offload activations over: PCIe 5.0 x16 on an H100, 64 GB/s a
    # direction; NVLink-C2C to the Grace CPU on a GB200, 450.
    links = {g["name"]: g["host_link"]["bandwidth_gb_per_s"] for g in pipeplan.gpus()}
    assert links["h100"] == 64.0 and links["gb200"] == 450.0 and all(bw > 0 for bw in links.values())

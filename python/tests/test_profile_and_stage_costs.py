"""pipeplan.profile against `pipeplan profile`, and costs given per stage (the F, B and W lists)
against the command line given the same stages as a profile file, which is the form the command
line takes them in (docs/formats.md, "Profile"); --transfer's per-boundary list too."""

import json

import pytest

import pipeplan
from conftest import ROOT

MODEL = ROOT / "tests" / "data" / "models" / "tiny-llama.json"
MOE = ROOT / "tests" / "data" / "models" / "tiny-qwen-moe.json"


@pytest.mark.parametrize("settings, flags", [
    (dict(seq=256), ["--seq", 256]),
    (dict(seq=512, micro_batch=2, tp=2, chunks=2, placement="vee", dp=4, recompute="full",
          sharding="optimizer"), ["--seq", 512, "--micro-batch", 2, "--tp", 2, "--chunks", 2, "--placement", "vee",
                                  "--dp", 4, "--recompute", "full", "--sharding", "optimizer"]),
    (dict(seq=256, layout="even", chunks=2, gemm_efficiency=0.5, attention_efficiency="0.4,0.3", dtype="fp8"),
     ["--seq", 256, "--layout", "even", "--chunks", 2, "--gemm-efficiency", 0.5, "--attention-efficiency", "0.4,0.3",
      "--dtype", "fp8"]),
    (dict(seq=256, attention_kernel="fa2"), ["--seq", 256, "--attention-kernel", "fa2"]),
    (dict(seq=256, network=50, dp=16, sharding="optimizer"),
     ["--seq", 256, "--network", 50, "--dp", 16, "--sharding", "optimizer"]),
    (dict(seq=256, network="hdr"), ["--seq", 256, "--network", "hdr"]),
    (dict(seq=256, tp=2, tp_comm_overlap=True, tp_overlap_method="async-tp"),
     ["--seq", 256, "--tp", 2, "--tp-comm-overlap", "--tp-overlap-method", "async-tp"]),
    (dict(seq=256, elementwise="eager-fused-norm", recompute="full"),
     ["--seq", 256, "--elementwise", "eager-fused-norm", "--recompute", "full"]),
    (dict(seq=256, recompute="full", recompute_layers=2),
     ["--seq", 256, "--recompute", "full", "--recompute-layers", 2]),
    (dict(seq=256, dtype="fp8", fp8_params=True, dp=2, sharding="optimizer"),
     ["--seq", 256, "--dtype", "fp8", "--fp8-params", "--dp", 2, "--sharding", "optimizer"]),
    (dict(seq=256, dp=4, sharding="params", fsdp_impl="megatron"),
     ["--seq", 256, "--dp", 4, "--sharding", "params", "--fsdp-impl", "megatron"]),
    (dict(seq=256, dp=4, sharding="optimizer", ddp_bucket_size=40000, param_gather_at_step_start=True),
     ["--seq", 256, "--dp", 4, "--sharding", "optimizer", "--ddp-bucket-size", 40000, "--param-gather-at-step-start"]),
])
def test_profile_is_the_clis(cli, settings, flags):
    mine = pipeplan.profile(MODEL, "h100", 2, **settings)
    assert mine == json.loads(cli("profile", "--model", MODEL, "--gpu", "h100", "--stages", 2, *flags).stdout)
    # A dict model reads as the file does (only the name of the model in messages differs).
    assert pipeplan.profile(json.loads(MODEL.read_text()), "h100", 2, **settings) == mine


def test_an_offloading_profile_is_the_clis(cli):
    # One stage, as activation offloading needs: the keyword is the flag.
    mine = pipeplan.profile(MODEL, "h100", 1, seq=256, offload_layers=1)
    assert mine == json.loads(cli("profile", "--model", MODEL, "--gpu", "h100", "--stages", 1, "--seq", 256,
                                  "--offload-layers", 1).stdout)
    assert mine != pipeplan.profile(MODEL, "h100", 1, seq=256)


def test_a_mixture_of_experts_profile_is_the_clis(cli):
    mine = pipeplan.profile(MOE, "h100", 2, seq=256, ep=2, dp=2)
    assert mine == json.loads(cli("profile", "--model", MOE, "--gpu", "h100", "--stages", 2, "--seq", 256,
                                  "--ep", 2, "--dp", 2).stdout)
    flex = pipeplan.profile(MOE, "h100", 2, seq=256, ep=2, dp=2, moe_dispatcher="flex")
    assert flex == json.loads(cli("profile", "--model", MOE, "--gpu", "h100", "--stages", 2, "--seq", 256,
                                  "--ep", 2, "--dp", 2, "--moe-dispatcher", "flex").stdout)
    assert flex != mine
    # Replayed from one graph, the tiny layers lose the host's launches the dropless read exposes.
    graphed = pipeplan.profile(MOE, "h100", 2, seq=256, ep=2, dp=2, cuda_graphs="full")
    assert graphed == json.loads(cli("profile", "--model", MOE, "--gpu", "h100", "--stages", 2, "--seq", 256,
                                     "--ep", 2, "--dp", 2, "--cuda-graphs", "full").stdout)
    assert graphed["stages"][0]["f_ms"] < mine["stages"][0]["f_ms"]
    # Megatron-Core's all-to-all overlap: the stage gets its pair's time, as the CLI gives it.
    paired = pipeplan.profile(MOE, "h100", 2, seq=256, ep=2, dp=2, moe_a2a_overlap=True, moe_comm_sms=32)
    assert paired == json.loads(cli("profile", "--model", MOE, "--gpu", "h100", "--stages", 2, "--seq", 256,
                                    "--ep", 2, "--dp", 2, "--moe-a2a-overlap", "--moe-comm-sms", 32).stdout)
    assert "f_and_b_ms" in paired["stages"][0] and "f_and_b_ms" not in mine["stages"][0]


def test_a_profile_times_a_schedule_as_its_file_does(cli, tmp_path):
    costs = pipeplan.profile(MODEL, "h100", 4, seq=256)
    schedule = pipeplan.generate("zbh1", 4, 8)
    path, schedule_path = tmp_path / "p.json", tmp_path / "s.json"
    path.write_text(cli("profile", "--model", MODEL, "--gpu", "h100", "--stages", 4, "--seq", 256).stdout)
    schedule_path.write_text(schedule.to_json())
    expected = cli("simulate", schedule_path, "--json", "--profile", path).stdout
    assert pipeplan.simulate(schedule, profile=costs).to_json() == expected


@pytest.mark.parametrize("settings, flags", [
    (dict(placement="vee"), ["--placement", "vee"]),
    (dict(chunks=2, placement="ring"), ["--chunks", 2, "--placement", "ring"]),
    (dict(dtype="bf16,fp8"), ["--dtype", "bf16,fp8"]),
    (dict(layout="even"), ["--layout", "even", "--chunks", 3]),
    (dict(overlap_param_gather=True), ["--overlap-param-gather"]),
    (dict(tp=1, tp_comm_overlap=True), ["--tp", 1, "--tp-comm-overlap"]),
    (dict(tp=2, tp_comm_overlap=True, sequence_parallel=False), ["--tp", 2, "--tp-comm-overlap",
                                                                 "--no-sequence-parallel"]),
    (dict(tp=2, tp_overlap_method="async-tp"), ["--tp", 2, "--tp-overlap-method", "async-tp"]),
    (dict(network="fast"), ["--network", "fast"]),
    (dict(network=0), ["--network", 0]),
])
def test_profile_refusals_are_the_clis(cli, settings, flags):
    if "--chunks" in flags:
        settings = dict(settings, chunks=3)
    done = cli("profile", "--model", MODEL, "--gpu", "h100", "--stages", 2, *flags, check=False)
    assert done.returncode == 2
    with pytest.raises(pipeplan.Error) as caught:
        pipeplan.profile(MODEL, "h100", 2, **settings)
    assert done.stderr.strip() == f"pipeplan: error: {caught.value}"


@pytest.mark.parametrize("call, names", [
    (lambda: pipeplan.profile(MODEL, "h100", 0), ["--stages", "1 to 4096"]),
    (lambda: pipeplan.profile(MODEL, "h100", 2, dp=0), ["--dp"]),
    (lambda: pipeplan.profile(MODEL, "h100", 2, top=3), ["profile: unknown setting 'top'"]),
    (lambda: pipeplan.profile(MODEL, "h100", 2, chunk=2), ["'chunks'"]),
    (lambda: pipeplan.profile(MODEL, "h1000", 2), ["--gpu"]),
    (lambda: pipeplan.profile(MODEL, "h100", 2, seq="long"), ["seq", "long"]),
    (lambda: pipeplan.profile(MODEL, "h100", 2, elementwise="compiled"), ["--elementwise", "'compiled'", "eager"]),
])
def test_profile_errors_name_the_setting(call, names):
    with pytest.raises(pipeplan.Error) as caught:
        call()
    for name in names:
        assert name in str(caught.value)


def test_per_stage_costs_time_by_hand():
    # 1F1B, P = 2, M = 1: F on stage 0, F on stage 1, then the fused backwards in reverse, one after
    # the other: F0 + F1 + (B1 + W1) + (B0 + W0) = 1 + 2 + (3 + 1) + (1 + 1) = 9 ms.
    result = pipeplan.simulate(pipeplan.generate("1f1b", 2, 1), costs=([1, 2], [1, 3], [1, 1]))
    assert result.makespan_ms == 9.0
    # Device 1 is busy F1 + B1 + W1 = 6 ms of it, device 0 F0 + B0 + W0 = 3 ms.
    assert [d["busy_ms"] for d in result.devices] == [3.0, 6.0]


def write_profile(path, f, b, w, a_f=None, a_w=None, transfer=None, boundaries=None):
    """The profile file a user would write for the lists, by hand (docs/formats.md, "Profile")."""
    stages = []
    for i in range(len(f)):
        stage = {"f_ms": f[i], "b_ms": b[i], "w_ms": w[i]}
        if a_f is not None:
            stage.update(activation_bytes=a_f[i], w_activation_bytes=a_w[i])
        stages.append(stage)
    document = {"format": "pipeplan.profile", "schema_version": 2 if boundaries else 1, "stages": stages}
    if transfer is not None:
        document["transfer"] = {"ms": transfer}
    if boundaries is not None:
        document["boundaries"] = [{"ms": t} for t in boundaries]
    path.write_text(json.dumps(document))


F, B, W = [1.0, 1.25, 1.5, 2.0], [1.5, 1.5, 2.0, 2.5], [0.5, 0.75, 1.0, 1.0]
A_F, A_W = ["1GiB", "1GiB", "768MiB", "512MiB"], ["256MiB", "256MiB", "128MiB", 0]


@pytest.mark.parametrize("comm", ["overlap", "rendezvous"])
@pytest.mark.parametrize("name", ["1f1b", "zbh1", "interleaved", "zbv"])
def test_per_stage_costs_simulate_as_the_clis_profile(cli, tmp_path, name, comm):
    # The lists are per device (4 of them): a schedule with 2 chunks per device splits each evenly,
    # as a profile of one entry per device is split.
    schedule = pipeplan.generate(name, 4, 8)
    path, profile = tmp_path / "s.json", tmp_path / "p.json"
    path.write_text(schedule.to_json())
    write_profile(profile, F, B, W, A_F, A_W, transfer=0.25)
    expected = cli("simulate", path, "--json", "--comm", comm, "--profile", profile).stdout
    result = pipeplan.simulate(schedule, costs=(F, B, W), memory=(A_F, A_W), transfer=0.25, comm=comm)
    assert result.to_json() == expected


def test_per_stage_costs_with_boundaries_and_one_size_for_all(cli, tmp_path):
    schedule = pipeplan.generate("1f1b", 4, 8)
    path, profile = tmp_path / "s.json", tmp_path / "p.json"
    path.write_text(schedule.to_json())
    write_profile(profile, F, B, [1.0] * 4, ["1GiB"] * 4, ["0"] * 4, boundaries=[0.1, 0.5, 0.2])
    expected = cli("simulate", path, "--json", "--profile", profile).stdout
    # W and the memory the same for every stage: one value stands for all, beside the lists.
    result = pipeplan.simulate(schedule, costs=(F, B, 1.0), memory=("1GiB", 0), transfer=[0.1, 0.5, 0.2])
    assert result.to_json() == expected


def test_per_stage_costs_generate_as_the_clis_profile(cli, tmp_path):
    # The automatic zero bubble plans with the costs: its order follows the heavier stages.
    profile = tmp_path / "p.json"
    write_profile(profile, F, B, W, A_F, A_W, transfer=0.1)
    expected = cli("generate", "--schedule", "zb", "--stages", 4, "--microbatches", 8, "--profile", profile,
                   "--memory-limit", "8GiB").stdout
    schedule = pipeplan.generate("zb", 4, 8, costs=(F, B, W), memory=(A_F, A_W), transfer=0.1, memory_limit="8GiB")
    assert schedule.to_json() == expected


def test_a_per_boundary_transfer_is_the_clis(cli, tmp_path):
    # --transfer MS,MS,MS: one per stage boundary, the command line's own per-stage form.
    schedule = pipeplan.generate("zbh1", 4, 8)
    path = tmp_path / "s.json"
    path.write_text(schedule.to_json())
    expected = cli("simulate", path, "--json", "--costs", "1,2,1", "--transfer", "0.1,0.5,0.2").stdout
    assert pipeplan.simulate(schedule, costs=(1, 2, 1), transfer=[0.1, 0.5, 0.2]).to_json() == expected


@pytest.mark.parametrize("costs, memory, names", [
    (([1, 2], [1, 2, 3], [1, 1]), None, ["different lengths", "[2, 3]"]),
    (([1, 2], [1, 2]), None, ["costs: expected (F, B, W)"]),
    (([1, -2], [1, 1], [1, 1]), None, ["costs", "stages[1].f_ms"]),
    (([1, "x"], [1, 1], [1, 1]), None, ["costs: stages[1].f_ms"]),
    (([], [], []), None, ["empty"]),
    (([1, 1], [1, 1], [1, 1]), (["1GiB", "lots"], 0), ["per-stage costs: stages[1].activation_bytes", "lots"]),
    (([1, 1], [1, 1], [1, 1]), (["1GiB", "1GiB"], ["2GiB", 0]), ["stages[0]", "w_activation_bytes"]),
])
def test_per_stage_errors_name_the_stage(costs, memory, names):
    with pytest.raises(pipeplan.Error) as caught:
        pipeplan.simulate(pipeplan.generate("1f1b", 2, 2), costs=costs, memory=memory)
    for name in names:
        assert name in str(caught.value)


def test_per_stage_lists_of_another_length_name_the_count():
    # 3 entries for a 4-stage schedule on 4 devices: neither one per stage nor one per device.
    with pytest.raises(pipeplan.Error, match="3"):
        pipeplan.simulate(pipeplan.generate("1f1b", 4, 8), costs=([1] * 3, [1] * 3, [1] * 3))


def test_a_per_device_memory_limit_is_the_clis(cli):
    # --memory-limit SIZE,SIZE,...: one per device, the command line's per-device form; zb plans
    # device 0 under the tightest limit, so the order differs from one limit for all.
    args = ["generate", "--schedule", "zb", "--stages", 4, "--microbatches", 8, "--costs", "1.0,1.5,0.75",
            "--memory", "1GiB,256MiB"]
    limits = ["3GiB", "5GiB", "6GiB", "6GiB"]
    schedule = pipeplan.generate("zb", 4, 8, costs=(1.0, 1.5, 0.75), memory=("1GiB", "256MiB"), memory_limit=limits)
    assert schedule.to_json() == cli(*args, "--memory-limit", ",".join(limits)).stdout
    assert schedule.to_json() != cli(*args, "--memory-limit", "6GiB").stdout

"""Into PyTorch: the per-rank action lists and the CSV that torch.distributed.pipelining's
`_PipelineScheduleRuntime._load_csv` and torchtitan's `pipeline_parallel_schedule_csv` read, against
the files PyTorch's own schedule classes wrote (../shared/reference/pytorch-csv/generated/, the
README there says how) and against `pipeplan export`. torch is not installed here: the formats are
what is tested."""

import re

import pytest

import pipeplan

# PyTorch's schedule class (the file name's CLASS) and the generator that builds the same order
# (docs/schedules.md names each generator's source); V is --chunks where the generator takes it.
GENERATOR = {"GPipe": "gpipe", "Interleaved1F1B": "interleaved", "InterleavedZeroBubble": "interleaved-zb",
             "LoopedBFS": "looped-bfs", "ZBVZeroBubble": "zbv", "DualPipeV": "dualpipev"}
FIXED_CHUNKS = {"gpipe", "zbv", "dualpipev"}  # V is the schedule's own (1 or 2)


def pytorch_rows(path):
    """The file's per-rank actions as _load_csv reads them, idle (empty) cells dropped. GPipe's
    REDUCE_GRAD, the gradient reduction PyTorch's GPipe appends, is not a compute op and has no
    counterpart in a pipeplan schedule (it is what `pipeplan import` leaves out too)."""
    rows = [[cell for cell in line.split(",") if cell] for line in path.read_text().replace("\r", "").splitlines()]
    return [[cell for cell in row if not cell.endswith("REDUCE_GRAD")] for row in rows]


def test_pytorchs_own_schedules_are_the_generators_action_lists(pytorch_generated):
    matched = 0
    for path in pytorch_generated:
        found = re.fullmatch(r"(\w+?)_P(\d+)_M(\d+)_V(\d+)", path.stem)
        if found is None or found.group(1) not in GENERATOR:
            continue
        name, p, m, v = GENERATOR[found.group(1)], *map(int, found.groups()[1:])
        schedule = pipeplan.generate(name, p, m, **({} if name in FIXED_CHUNKS else {"chunks": v}))
        assert schedule.to_pytorch_actions() == pytorch_rows(path), path.name
        matched += 1
    assert matched >= 18  # the repository's copy has 18 compute files of these classes, the reference 34


def test_actions_are_the_csvs_cells(cli, tmp_path):
    for name in ("1f1b", "zbv", "dualpipev", "interleaved-zb"):
        schedule = pipeplan.generate(name, 4, 8)
        csv = schedule.to_pytorch_csv()
        assert [",".join(row) for row in schedule.to_pytorch_actions()] == csv.splitlines()
        path = tmp_path / "s.json"
        path.write_text(schedule.to_json())
        assert csv == cli("export", path, "--format", "csv").stdout


def test_with_comms_is_exports_timed_lowering(cli, tmp_path):
    # The sends and receives `pipeplan export --with-comms` adds, with the same costs (the timed
    # lowering orders them by the overlapped run) or the policy named.
    schedule = pipeplan.generate("zbv", 4, 8)
    path = tmp_path / "s.json"
    path.write_text(schedule.to_json())
    for kwargs, flags in ((dict(costs=(1, 2, 1), transfer=0.5), ["--costs", "1,2,1", "--transfer", "0.5"]),
                          (dict(policy="megatron"), ["--policy", "megatron"])):
        text = schedule.to_pytorch_csv(with_comms=True, **kwargs)
        assert text == cli("export", path, "--format", "csv", "--with-comms", *flags).stdout
        actions = schedule.to_pytorch_actions(with_comms=True, **kwargs)
        assert [",".join(row) for row in actions] == text.splitlines()
        # Each rank's compute ops in the same order as without the sends and receives.
        compute = [[a for a in row if "SEND" not in a and "RECV" not in a] for row in actions]
        assert compute == schedule.to_pytorch_actions()


def test_csv_refuses_what_it_would_ignore():
    schedule = pipeplan.generate("1f1b", 2, 2)
    with pytest.raises(pipeplan.Error, match="--costs: the CSV without with_comms is not timed"):
        schedule.to_pytorch_csv(costs=(1, 2, 1))
    with pytest.raises(pipeplan.Error, match="--policy"):
        schedule.to_pytorch_actions(policy="megatron")


def test_a_files_own_sends_and_receives_are_kept(cli, tmp_path, reference):
    # A schedule read with its sends and receives (import --with-comms) writes them back as they
    # are, as export does, rather than lowering it again.
    path = reference / "zb1p_2rank_2stagep_comms_legacy.csv"
    schedule = pipeplan.load(path, with_comms=True)
    assert schedule.has_communication
    json_path = tmp_path / "s.json"
    json_path.write_text(schedule.to_json())
    expected = cli("export", json_path, "--format", "csv", "--with-comms").stdout
    assert schedule.to_pytorch_csv(with_comms=True) == expected
    with pytest.raises(pipeplan.Error, match="--policy"):  # it has its own: a policy is refused, as by export
        schedule.to_pytorch_csv(with_comms=True, policy="timed")

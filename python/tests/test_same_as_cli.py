"""The same inputs give the same output from Python as from the command line, byte for byte:
the schedule JSON of every generator, the result JSON of simulate under each communication mode,
and the schedules of PyTorch's CSV files."""

import json

import pytest

import pipeplan
from conftest import ROOT

SCHEDULE = ROOT / "schedules" / "zbh1-p4-m8.json"


def cli_generator_names(cli):
    # `pipeplan list`: a header row, one row per generator, then the notes starting "P = ".
    lines = cli("list").stdout.splitlines()[1:]
    names = []
    for line in lines:
        if line.startswith("P = "):
            break
        names.append(line.split()[0])
    return names


def test_generators_are_the_lists(cli):
    assert [g["name"] for g in pipeplan.generators()] == cli_generator_names(cli)


def request_for(generator):
    """A request every generator builds at P = 4, M = 8: costs (and a memory limit) to the ones
    that plan with them, which the command line refuses to the others."""
    args = {}
    if generator["uses_costs"]:
        args.update(costs=(1.0, 1.5, 0.75), transfer=0.25, memory=("1GiB", "256MiB"))
    if generator["memory_limit"] == "required":
        args["memory_limit"] = "6GiB"
    return args


def flags_of(args):
    flags = []
    if "costs" in args:
        flags += ["--costs", ",".join(repr(c) for c in args["costs"])]
    if "transfer" in args:
        flags += ["--transfer", repr(args["transfer"])]
    if "memory" in args:
        flags += ["--memory", ",".join(args["memory"])]
    if "memory_limit" in args:
        flags += ["--memory-limit", args["memory_limit"]]
    return flags


@pytest.mark.parametrize("generator", pipeplan.generators(), ids=lambda g: g["name"])
def test_every_generator_writes_the_clis_schedule(cli, generator):
    args = request_for(generator)
    schedule = pipeplan.generate(generator["name"], 4, 8, **args)
    expected = cli("generate", "--schedule", generator["name"], "--stages", 4, "--microbatches", 8,
                   *flags_of(args)).stdout
    assert schedule.to_json() == expected
    # The counts the JSON carries, as the properties read them.
    document = json.loads(expected)
    assert (schedule.devices, schedule.stages, schedule.microbatches) == (4, document["stages"], 8)
    assert schedule.placement == document["placement"]


@pytest.mark.parametrize("comm", ["overlap", "blocking", "rendezvous"])
@pytest.mark.parametrize("name", ["1f1b", "zbh1", "zbv", "dualpipev"])
def test_simulate_gives_the_clis_result(cli, tmp_path, comm, name):
    schedule = pipeplan.generate(name, 4, 8)
    path = tmp_path / "s.json"
    path.write_text(schedule.to_json())
    costs = dict(costs=(1.0, 2.0, 1.0), transfer=0.5, memory=("2GiB", "512MiB"))
    flags = ["--costs", "1.0,2.0,1.0", "--transfer", "0.5", "--memory", "2GiB,512MiB", "--comm", comm]
    result = pipeplan.simulate(schedule, comm=comm, iterations=2, optimizer_mode="post-validation", **costs)
    expected = cli("simulate", path, "--json", "--iterations", 2, "--optimizer-mode", "post-validation",
                   *flags).stdout
    assert result.to_json() == expected
    document = json.loads(expected)
    assert result.makespan_ms == document["makespan_ms"]
    assert result.step_ms == document["step_ms"]
    assert result.bubble_rate == document["bubble_rate"]
    assert result.lower_bound_ms == document["lower_bound_ms"]
    for mine, theirs in zip(result.devices, document["devices"]):
        assert mine["busy_ms"] == theirs["busy_ms"]
        assert mine["idle_ms"] == theirs["idle_ms"]
        assert mine["peak_memory_bytes"] == theirs["peak_memory_bytes"]


def test_a_profile_path_and_a_loaded_profile_time_alike(cli):
    from conftest import ROOT
    path = ROOT / "profiles" / "example-p4.json"
    schedule = pipeplan.generate("zbh1", 4, 8)
    by_path = pipeplan.simulate(schedule, profile=path)
    by_dict = pipeplan.simulate(schedule, profile=pipeplan.load_profile(path))
    assert by_path.to_json() == by_dict.to_json()
    file = ROOT / "schedules" / "zbh1-p4-m8.json"
    expected = json.loads(cli("simulate", file, "--json", "--profile", path).stdout)
    assert pipeplan.simulate(pipeplan.load(file), profile=path).makespan_ms == expected["makespan_ms"]


def reference_files(reference):
    return sorted(reference.glob("*.csv")) + sorted((reference / "generated").glob("*.csv"))


def test_pytorch_csv_files_import_as_the_cli_imports_them(cli, reference):
    files = reference_files(reference)
    assert len(files) >= 3  # the README's three files at least
    for path in files:
        assert pipeplan.load(path).to_json() == cli("import", path).stdout, path
        kept = pipeplan.load(path, with_comms=True).to_json()
        assert kept == cli("import", path, "--with-comms").stdout, path


def test_pytorch_csv_round_trips(cli, reference, tmp_path):
    for path in reference_files(reference):
        schedule = pipeplan.load(path)
        text = schedule.to_pytorch_csv()
        # What `pipeplan export --format csv` writes, and what reads back as the same schedule.
        json_path = tmp_path / "s.json"
        json_path.write_text(schedule.to_json())
        assert text == cli("export", json_path, "--format", "csv").stdout, path
        back = pipeplan.from_pytorch_csv(text)  # named "<csv>" rather than by the file
        assert (back.devices, back.stages, back.microbatches) == (schedule.devices, schedule.stages,
                                                                  schedule.microbatches), path
        assert (back.placement, back.order) == (schedule.placement, schedule.order), path


@pytest.mark.parametrize("call, args", [
    (lambda: pipeplan.generate("zbh", 4, 8), ["generate", "--schedule", "zbh", "--stages", 4, "--microbatches", 8]),
    (lambda: pipeplan.generate("1f1b", 4, 8, costs="1,2"),
     ["generate", "--schedule", "1f1b", "--stages", 4, "--microbatches", 8, "--costs", "1,2"]),
    (lambda: pipeplan.generate("zb", 4, 8, costs=(1.0, 1.0, 1.0), memory_limit="lots"),
     ["generate", "--schedule", "zb", "--stages", 4, "--microbatches", 8, "--costs", "1.0,1.0,1.0",
      "--memory-limit", "lots"]),
    (lambda: pipeplan.simulate(pipeplan.load(SCHEDULE), memory=("1GiB", "2GiB")),
     ["simulate", "SCHEDULE", "--memory", "1GiB,2GiB"]),
    (lambda: pipeplan.simulate(pipeplan.load(SCHEDULE), transfer=[1.0, 2.0]),
     ["simulate", "SCHEDULE", "--transfer", "1.0,2.0"]),
])
def test_errors_carry_the_clis_message(cli, call, args):
    # The values the library reads (lib/io); a choice CLI11 checks while parsing (--optimizer-mode,
    # --comm) has CLI11's words there, and the library's, naming the same flag and choices, here.
    done = cli(*[SCHEDULE if a == "SCHEDULE" else a for a in args], check=False)
    assert done.returncode == 2  # a malformed value, as pipeplan.Error reports it
    with pytest.raises(pipeplan.Error) as caught:
        call()
    assert done.stderr.strip() == f"pipeplan: error: {caught.value}"

"""pipeplan: pipeline-parallel training schedules, their simulation and their files.

The functions here turn Python values into the command line's flag values (the texts that
`pipeplan generate --costs 1,2,1` reads) and call the library's C++ through _pipeplan, so every
value is checked, and every number computed, by the same code as the command line's. See
docs/python.md for the whole API.
"""

from __future__ import annotations

import json as _json
import os as _os
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple, Union

from . import _pipeplan
from ._pipeplan import Error, Result, Schedule

try:  # numpy is optional: without it the op columns are memoryviews
    import numpy as _numpy
except ImportError:  # pragma: no cover - exercised where numpy is absent
    _numpy = None

__all__ = [
    "Error", "Schedule", "Result", "Device", "Ops", "generate", "simulate", "validate", "plan", "profile", "from_json",
    "from_pytorch_csv", "load", "load_profile", "generators", "gpus", "__version__",
]

__version__ = _pipeplan.tool_version().split(" ")[-1]

Size = Union[int, str]
Costs = Union[Tuple[float, float, float], Tuple[Sequence[float], Sequence[float], Sequence[float]], str]


def _number(value: Any, name: str) -> str:
    # repr of a float is the shortest text that reads back as the same double, so the library
    # parses exactly the number given.
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise Error(f"{name}: expected a number of milliseconds, got {value!r}")
    return repr(float(value))


def _size(value: Size, name: str) -> str:
    if isinstance(value, bool):
        raise Error(f"{name}: expected a size such as 2GiB, 1.5GB or a number of bytes, got {value!r}")
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):
        return value
    raise Error(f"{name}: expected a size such as 2GiB, 1.5GB or a number of bytes, got {value!r}")


def _texts(values: Any, convert, name: str) -> str:
    if isinstance(values, str):
        return values
    if isinstance(values, (list, tuple)):
        return ",".join(convert(v, name) for v in values)
    return convert(values, name)


def _is_list(value: Any) -> bool:
    return isinstance(value, (list, tuple)) or (_numpy is not None and isinstance(value, _numpy.ndarray))


def _per_stage(costs: Any, memory: Any) -> bool:
    """Whether costs is (F list, B list, W list) or memory (A_F list, A_W list): one per stage."""
    for value in (costs, memory):
        if _is_list(value) and len(value) > 0 and any(_is_list(v) for v in value):
            return True
    return False


def _columns(value: Any, count: int, name: str, parts: str) -> List[List[Any]]:
    """`value` as `count` columns, each a list (per stage) or one value (every stage alike)."""
    if not _is_list(value) or len(value) != count:
        raise Error(f"{name}: expected {parts}, each a number or a list with one per stage, got {value!r}")
    return [list(v) if _is_list(v) else None for v in value]


def _stage_profile(costs: Any, transfer: Any, memory: Any) -> Dict[str, Any]:
    """The profile document (docs/formats.md, "Profile") of per-stage costs: one entry per stage
    of the lists, which, as a profile's, are the schedule's stages or its devices (then split into
    each device's chunks). The library reads it as it reads `--profile FILE`."""
    f_b_w = (1.0, 1.0, 1.0) if costs is None else costs
    if isinstance(f_b_w, str):
        f_b_w = f_b_w.split(",")
    cost_columns = _columns(f_b_w, 3, "costs", "(F, B, W)")
    memory_columns = [None, None] if memory is None else _columns(
        memory.split(",") if isinstance(memory, str) else memory, 2, "memory", "(A_F, A_W)")
    lengths = {len(c) for c in cost_columns + memory_columns if c is not None}
    if len(lengths) != 1:
        raise Error(f"costs, memory: the per-stage lists have different lengths {sorted(lengths)}; "
                    "give one value per stage in each")
    stages = lengths.pop()
    if stages == 0:
        raise Error("costs: the per-stage lists are empty; give one value per stage")

    def at(column: Optional[List[Any]], whole: Any, i: int) -> Any:
        return column[i] if column is not None else whole

    entries = []
    for i in range(stages):
        entry = {key: at(cost_columns[k], f_b_w[k], i) for k, key in enumerate(("f_ms", "b_ms", "w_ms"))}
        for key, value in entry.items():
            try:  # a text such as "1.5" reads as the flag's would; range checks are the library's
                entry[key] = float(value) if not isinstance(value, bool) else None
            except (TypeError, ValueError):
                entry[key] = None
            if entry[key] is None:
                raise Error(f"costs: stages[{i}].{key}: expected a number of milliseconds, got {value!r}")
        if memory is not None:
            parts = memory.split(",") if isinstance(memory, str) else memory
            for k, key in enumerate(("activation_bytes", "w_activation_bytes")):
                value = at(memory_columns[k], parts[k], i)
                text = _size(value, f"memory: stages[{i}].{key}")
                entry[key] = int(text) if text.isdigit() else text
        entries.append(entry)
    document: Dict[str, Any] = {"format": "pipeplan.profile", "schema_version": 1, "stages": entries}
    if transfer is None:
        pass
    elif _is_list(transfer) or (isinstance(transfer, str) and "," in transfer):
        times = transfer.split(",") if isinstance(transfer, str) else transfer
        document["schema_version"] = 2
        document["boundaries"] = [{"ms": float(_number(t, "transfer"))} for t in times]
    else:
        document["transfer"] = {"ms": float(_number(float(transfer) if isinstance(transfer, str) else transfer,
                                                    "transfer"))}
    return document


def _costs(costs: Optional[Costs], transfer: Any, memory: Any, profile: Any) -> Tuple[Any, str]:
    """The library's cost spec for the keyword arguments, and the first one given (by its flag)."""
    given = ""
    for flag, value in (("--profile", profile), ("--costs", costs), ("--transfer", transfer), ("--memory", memory)):
        if value is not None:
            given = flag
            break
    if profile is not None and (costs is not None or transfer is not None or memory is not None):
        raise Error("profile: excludes costs, transfer and memory (a profile carries its own)")
    if _per_stage(costs, memory):
        document = _json.dumps(_stage_profile(costs, transfer, memory))
        return _pipeplan._Costs(profile_json=document, profile_name="per-stage costs"), given
    path, document = "", ""
    if isinstance(profile, (str, _os.PathLike)):
        path = _os.fspath(profile)
    elif isinstance(profile, Mapping):
        document = _json.dumps(profile)
    elif profile is not None:
        raise Error(f"profile: expected a path or a loaded profile (a dict), got {type(profile).__name__}")
    spec = _pipeplan._Costs(
        profile=path,
        costs="" if costs is None else _texts(costs, _number, "--costs"),
        transfer="" if transfer is None else _texts(transfer, _number, "--transfer"),
        memory="" if memory is None else _texts(memory, _size, "--memory"),
        profile_json=document,
    )
    return spec, given


def _count(value: Any, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise Error(f"{name}: expected a whole number, got {value!r}")
    return value


def generate(schedule: str, stages: int, microbatches: int, *, chunks: Optional[int] = None,
             group: Optional[int] = None, costs: Optional[Costs] = None, transfer: Any = None,
             memory: Any = None, profile: Any = None, memory_limit: Any = None,
             optimizer_mode: Optional[str] = None, iterations: Optional[int] = None) -> Schedule:
    """The schedule `schedule` (a name of generators()) for `stages` devices, as `pipeplan generate`."""
    spec, cost_given = _costs(costs, transfer, memory, profile)
    objective = "--optimizer-mode" if optimizer_mode is not None else ("--iterations" if iterations is not None else "")
    return _pipeplan._generate(
        schedule, _count(stages, "--stages"), _count(microbatches, "--microbatches"),
        0 if chunks is None else _count(chunks, "--chunks"), chunks is not None,
        0 if group is None else _count(group, "--group"), group is not None,
        spec, cost_given, "" if memory_limit is None else _texts(memory_limit, _size, "--memory-limit"),
        "sync" if optimizer_mode is None else optimizer_mode,
        1 if iterations is None else _count(iterations, "--iterations"), objective)


class Ops:
    """Every simulated op, one column each (numpy arrays where numpy is installed)."""

    KINDS = ("F", "B", "W", "BW", "FB")  # kind codes: the library's OpKind order

    def __init__(self, columns: Tuple[Any, ...]) -> None:
        wrap = _numpy.asarray if _numpy is not None else memoryview
        (self.device, self.iteration, self.kind, self.stage, self.microbatch, self.start_ms,
         self.end_ms) = (wrap(c) for c in columns)
        self._columns = columns  # the buffers the arrays view

    def __len__(self) -> int:
        return len(self.start_ms)


class Device(dict):
    """One device's figures, the result JSON's: `device`, `busy_ms`, `idle_ms`,
    `static_memory_bytes`, `peak_memory_bytes`, `peak_time_ms`, read as attributes
    (`result.devices[0].busy_ms`) or as the dict they are (`result.devices[0]["busy_ms"]`)."""

    def __getattr__(self, name: str) -> Any:
        try:
            return self[name]
        except KeyError:
            raise AttributeError(f"a device has no {name!r}; it has {', '.join(self)}") from None


Result.devices = property(lambda result: [Device(d) for d in result._devices],
                          doc="Per device, its figures (Device).")


def _ops(result: Result) -> Ops:
    return Ops(result._op_columns())


Result.ops = property(_ops, doc="The ops' devices, kinds, stages, micro-batches, starts and ends (Ops).")


def simulate(schedule: Schedule, *, costs: Optional[Costs] = None, transfer: Any = None, memory: Any = None,
             profile: Any = None, comm: str = "overlap", policy: Optional[str] = None, iterations: int = 1,
             optimizer_mode: str = "sync", timeline: bool = True) -> Result:
    """Times `schedule` as `pipeplan simulate` does; timeline=False keeps no op's times (faster)."""
    spec, _ = _costs(costs, transfer, memory, profile)
    return _pipeplan._simulate(schedule, spec, _pipeplan._Comm(comm, policy or ""),
                               _count(iterations, "--iterations"), optimizer_mode, bool(timeline))


def validate(schedule: Schedule, *, costs: Optional[Costs] = None, transfer: Any = None, memory: Any = None,
             profile: Any = None, comm: str = "overlap", policy: Optional[str] = None,
             memory_limit: Optional[Size] = None) -> List[Dict[str, Any]]:
    """Every problem of `schedule`, as `pipeplan validate` lists them; empty when it is valid."""
    spec, _ = _costs(costs, transfer, memory, profile)
    return _pipeplan._validate(schedule, spec, _pipeplan._Comm(comm, policy or ""),
                               "" if memory_limit is None else _size(memory_limit, "--memory-limit"))


def from_json(text: str) -> Schedule:
    """A schedule from its JSON text (docs/formats.md, "Schedule")."""
    return _pipeplan.from_json(text, "<json>")


def from_pytorch_csv(text: str, *, naming: str = "auto", with_comms: bool = False) -> Schedule:
    """A schedule from PyTorch pipelining's CSV text, as `pipeplan import` reads it."""
    return _pipeplan.from_pytorch_csv(text, "<csv>", naming, bool(with_comms))


def load(path: Union[str, "_os.PathLike[str]"], *, naming: str = "auto",
         with_comms: bool = False) -> Schedule:
    """A schedule file: PyTorch's CSV when the name ends in .csv, else the schedule JSON."""
    path = _os.fspath(path)
    if path.lower().endswith(".csv"):
        return _pipeplan.from_pytorch_csv(_pipeplan.read_text(path), path, naming, bool(with_comms))
    return _pipeplan.load_json(path)


def load_profile(path: Union[str, "_os.PathLike[str]"]) -> Dict[str, Any]:
    """A profile file as a dict, for generate(profile=...) and simulate(profile=...)."""
    return _json.loads(_pipeplan.read_text(_os.fspath(path)))


def plan(model: Union[str, "_os.PathLike[str]", Mapping[str, Any]], gpu: str, gpus: int, seq: int,
         global_batch: int, *, top: int = 5, **fixed: Any) -> List[Dict[str, Any]]:
    """The planner's rows, as `pipeplan plan --json` lists them; `model` a config.json path or dict.

    `fixed` takes the flags of `pipeplan plan` by name, dashes as underscores (tp=8,
    recompute="full", schedules=["1f1b", "zb"], memory_limit="70GiB", ...); a setting not given
    is searched where the planner searches it."""
    path, document = _model(model)
    for name in ("memory_limit", "memory_reserve"):
        if name in fixed:
            fixed[name] = _size(fixed[name], "--" + name.replace("_", "-"))
    if isinstance(fixed.get("schedules"), str):
        fixed["schedules"] = fixed["schedules"].split(",")
    for name in ("calibration",):
        if name in fixed and isinstance(fixed[name], _os.PathLike):
            fixed[name] = _os.fspath(fixed[name])
    text = _pipeplan._plan(path, document, gpu, _count(gpus, "--gpus"), _count(seq, "--seq"),
                           _count(global_batch, "--global-batch"), _count(top, "--top"), fixed)
    return _json.loads(text)["rows"]


def profile(model: Union[str, "_os.PathLike[str]", Mapping[str, Any]], gpu: str, stages: int,
            **settings: Any) -> Dict[str, Any]:
    """The analytic profile `pipeplan profile` writes, as a dict for generate(profile=...) and
    simulate(profile=...); `model` a config.json path or dict.

    `settings` takes the flags of `pipeplan profile` by name, dashes as underscores (seq=4096,
    micro_batch=2, tp=8, chunks=2, placement="vee", layout="even", dp=4, recompute="full", ...)."""
    path, document = _model(model)
    return _json.loads(_pipeplan._profile(path, document, gpu, _count(stages, "--stages"), settings))


def _model(model: Any) -> Tuple[str, str]:
    if isinstance(model, Mapping):
        return "model", _json.dumps(model)
    return _os.fspath(model), ""


def _to_pytorch_csv(self: Schedule, with_comms: bool = False, *, costs: Optional[Costs] = None,
                    transfer: Any = None, memory: Any = None, profile: Any = None,
                    policy: Optional[str] = None) -> str:
    """PyTorch pipelining's CSV, as `pipeplan export --format csv [--with-comms]` writes it."""
    spec, given = _costs(costs, transfer, memory, profile)
    return _pipeplan._pytorch_csv(self, bool(with_comms), spec, given, policy or "")


def _to_pytorch_actions(self: Schedule, with_comms: bool = False, **costs: Any) -> List[List[str]]:
    """Each rank's actions, in order, as PyTorch's runtime holds them: the rows of the CSV that
    `_PipelineScheduleRuntime._load_csv` reads, one action text (`_Action.from_str`'s) a cell."""
    return [line.split(",") if line else [] for line in _to_pytorch_csv(self, with_comms, **costs).split("\n")[:-1]]


Schedule.to_pytorch_csv = _to_pytorch_csv
Schedule.to_pytorch_actions = _to_pytorch_actions


def generators() -> List[Dict[str, Any]]:
    """Every generator, in `pipeplan list`'s order, with what it takes."""
    return _pipeplan.generators()


def gpus() -> List[Dict[str, Any]]:
    """Every built-in GPU, in `pipeplan gpus`'s order, with its data sheet's figures."""
    return _pipeplan.gpus()

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
    "Error", "Schedule", "Result", "Ops", "generate", "simulate", "validate", "plan", "from_json",
    "from_pytorch_csv", "load", "generators", "gpus", "__version__",
]

__version__ = _pipeplan.tool_version().split(" ")[-1]

Size = Union[int, str]
Costs = Union[Tuple[float, float, float], Sequence[float], str]


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


def _costs(costs: Optional[Costs], transfer: Any, memory: Any, profile: Any) -> Tuple[Any, str]:
    """The library's cost spec for the keyword arguments, and the first one given (by its flag)."""
    given = ""
    for flag, value in (("--profile", profile), ("--costs", costs), ("--transfer", transfer), ("--memory", memory)):
        if value is not None:
            given = flag
            break
    if profile is not None and (costs is not None or transfer is not None or memory is not None):
        raise Error("profile: excludes costs, transfer and memory (a profile carries its own)")
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
    if isinstance(model, Mapping):
        path, document = "model", _json.dumps(model)
    else:
        path, document = _os.fspath(model), ""
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


def generators() -> List[Dict[str, Any]]:
    """Every generator, in `pipeplan list`'s order, with what it takes."""
    return _pipeplan.generators()


def gpus() -> List[Dict[str, Any]]:
    """Every built-in GPU, in `pipeplan gpus`'s order, with its data sheet's figures."""
    return _pipeplan.gpus()

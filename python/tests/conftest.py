"""Where the tests find the command line they compare with and the reference files.

ctest (python/CMakeLists.txt) sets PIPEPLAN_CLI to the pipeplan binary of the same build and
PYTHONPATH to the built package; run by hand, give them the same way.
"""

import os
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def cli():
    path = os.environ.get("PIPEPLAN_CLI", str(ROOT / "build" / "pipeplan"))
    if not Path(path).is_file():
        pytest.fail(f"no pipeplan command at {path}: build it, or set PIPEPLAN_CLI")

    def run(*args, check=True):
        done = subprocess.run([path, *map(str, args)], capture_output=True, text=True)
        if check and done.returncode != 0:
            raise AssertionError(f"pipeplan {' '.join(map(str, args))}: exit {done.returncode}: {done.stderr}")
        return done

    return run


@pytest.fixture(scope="session")
def reference():
    # The issue's ../shared/reference/pytorch-csv/: PyTorch's own files (its README says which).
    path = Path(os.environ.get("PIPEPLAN_REFERENCE", str(ROOT.parent / "shared" / "reference")))
    csv = path / "pytorch-csv"
    if not csv.is_dir():
        pytest.skip(f"no PyTorch reference files at {csv} (set PIPEPLAN_REFERENCE)")
    return csv


@pytest.fixture(scope="session")
def pytorch_generated():
    """The compute-order CSV files PyTorch's own schedule classes wrote (README of the folder):
    ../shared/reference/pytorch-csv/generated/ where it is, else the repository's copy of part of it."""
    path = Path(os.environ.get("PIPEPLAN_REFERENCE", str(ROOT.parent / "shared" / "reference"))) / "pytorch-csv"
    folder = path / "generated" if (path / "generated").is_dir() else ROOT / "tests" / "data" / "pytorch" / "generated"
    files = sorted(p for p in folder.glob("*.csv") if not p.stem.endswith(("_comms", "_sr")))
    assert files, f"no PyTorch CSV files in {folder}"
    return files

"""The README's ten-line example and docs/python.md's, run as written (in a scratch folder, in a
separate interpreter, as a user would paste them), so that they stay true: each writes the CSV for
torchtitan, which must read back as the schedule generated, valid under the example's limit."""

import os
import re
import subprocess
import sys

import pytest

import pipeplan
from conftest import ROOT


def first_python_block(path):
    found = re.search(r"```python\n(.*?)```", path.read_text(), re.S)
    assert found, f"{path}: no ```python block"
    return found.group(1)


@pytest.mark.parametrize("page", ["README.md", "docs/python.md"])
def test_the_example_runs_as_written(tmp_path, page):
    code = first_python_block(ROOT / page)
    assert len([line for line in code.splitlines() if line.strip()]) <= 10, f"{page}: the example grew past ten lines"
    # The package under test, wherever it was imported from (the build tree, or a venv).
    here = os.path.dirname(os.path.dirname(pipeplan.__file__))
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [here, os.environ.get("PYTHONPATH")])))
    done = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, env=env)
    assert done.returncode == 0, done.stderr
    # The CSV it wrote is the zero-bubble schedule it generated, for 8 ranks and 32 micro-batches.
    written = pipeplan.load(tmp_path / "zb.csv")
    assert (written.devices, written.microbatches) == (8, 32)
    # The schedule it generated, again (same inputs, same order: the zb search is deterministic).
    costs = (1.8, 2.1, 1.3)
    again = pipeplan.generate("zb", 8, 32, costs=costs, transfer=0.05, memory=("2GiB", "512MiB"),
                              memory_limit="60GiB", optimizer_mode="post-validation")
    assert written.order == again.order
    assert pipeplan.validate(written, costs=costs, transfer=0.05, memory=("2GiB", "512MiB"),
                             memory_limit="60GiB") == []
    # What it printed: the step and the bubble of that schedule, simulated as the example says.
    assert done.stdout.strip(), f"{page}: the example printed nothing"


def test_every_other_example_of_the_api_page_runs(tmp_path):
    blocks = re.findall(r"```python\n(.*?)```", (ROOT / "docs" / "python.md").read_text(), re.S)[1:]
    assert blocks, "docs/python.md: only the one example"
    here = os.path.dirname(os.path.dirname(pipeplan.__file__))
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [here, os.environ.get("PYTHONPATH")])))
    for code in blocks:
        done = subprocess.run([sys.executable, "-c", "import pipeplan\n" + code], cwd=tmp_path, capture_output=True,
                              text=True, env=env)
        assert done.returncode == 0, f"{code}\n{done.stderr}"

"""Builds the module pipeplan._pipeplan with this repository's CMake (python/CMakeLists.txt).

pyproject.toml says what the package is; this file only adds the build step: CMake configures
the library alone (no command line, tests or benchmarks), builds the target _pipeplan for the
interpreter running pip, and the module lands in the wheel beside python/pipeplan/*.py.
PIPEPLAN_CMAKE_ARGS adds arguments to the configure step (e.g. a compiler launcher).
"""

import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = Path(__file__).resolve().parent


def version() -> str:
    # One version, CMake's project(): the library writes it into every file (io/version.cpp).
    text = (ROOT / "CMakeLists.txt").read_text()
    found = re.search(r"project\(pipeplan VERSION ([0-9.]+)", text)
    if not found:
        raise RuntimeError("CMakeLists.txt: no 'project(pipeplan VERSION x.y.z' to take the version from")
    return found.group(1)


class CMakeBuild(build_ext):
    def build_extension(self, ext: Extension) -> None:
        build_dir = Path(self.build_temp).resolve() / "cmake"
        build_dir.mkdir(parents=True, exist_ok=True)
        configure = [
            "cmake", "-S", str(ROOT), "-B", str(build_dir), "-DCMAKE_BUILD_TYPE=Release",
            "-DPIPEPLAN_BUILD_APPS=OFF", "-DPIPEPLAN_BUILD_TESTS=OFF", "-DPIPEPLAN_BUILD_BENCH=OFF",
            "-DPIPEPLAN_GPU=OFF", "-DPIPEPLAN_WERROR=OFF", "-DPIPEPLAN_PYTHON=ON",
            f"-DPython_EXECUTABLE={sys.executable}",
        ] + shlex.split(os.environ.get("PIPEPLAN_CMAKE_ARGS", ""))
        subprocess.run(configure, check=True)
        jobs = os.environ.get("CMAKE_BUILD_PARALLEL_LEVEL", str(os.cpu_count() or 1))
        subprocess.run(["cmake", "--build", str(build_dir), "--target", "_pipeplan", "-j", jobs], check=True)
        built = list((build_dir / "python" / "pipeplan").glob("_pipeplan*.so"))
        if len(built) != 1:
            raise RuntimeError(f"CMake built {len(built)} _pipeplan modules in {build_dir}, expected one")
        target = Path(self.get_ext_fullpath(ext.name))
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(built[0], target)


setup(
    version=version(),
    ext_modules=[Extension("pipeplan._pipeplan", sources=[])],
    cmdclass={"build_ext": CMakeBuild},
)

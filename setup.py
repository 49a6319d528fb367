"""Builds the module pipeplan._pipeplan with this repository's CMake (python/CMakeLists.txt).

pyproject.toml says what the package is; this file only adds the build step: CMake configures
the library alone (no command line, tests or benchmarks), builds the target _pipeplan for the
interpreter running pip, and the module lands in the wheel beside python/pipeplan/*.py.
PIPEPLAN_CMAKE_ARGS adds arguments to the configure step (e.g. a compiler launcher).

Where the repository's own CMake build (build/, scripts/build.sh) already makes the module for this
interpreter, in an optimised, uninstrumented build, setup.py builds the target there instead
(nothing to do when it is up to date) and takes that module: the same sources, compiled once, so
the install takes seconds rather than a second build of the library (18.6 minutes on 2 cores).
PIPEPLAN_BUILD_DIR=DIR names another such build; PIPEPLAN_BUILD_DIR=none always builds afresh.
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


def cmake_cache(build_dir: Path) -> dict:
    cache = {}
    path = build_dir / "CMakeCache.txt"
    if path.is_file():
        for line in path.read_text(errors="replace").splitlines():
            found = re.match(r"([A-Za-z_][A-Za-z0-9_]*):[A-Z]+=(.*)", line)
            if found:
                cache[found.group(1)] = found.group(2)
    return cache


def reusable_build() -> "tuple[Path | None, str]":
    """The CMake build whose module this install can take, or None and why not."""
    named = os.environ.get("PIPEPLAN_BUILD_DIR", "")
    if named.lower() == "none":
        return None, "PIPEPLAN_BUILD_DIR=none"
    build_dir = (ROOT / (named or "build")).resolve()
    cache = cmake_cache(build_dir)
    if not cache:
        return None, f"no CMake build in {build_dir}"
    same = lambda a, b: os.path.realpath(a) == os.path.realpath(b)
    interpreter = getattr(sys, "_base_executable", sys.executable)  # a venv's python is its base's
    checks = [
        (same(cache.get("CMAKE_HOME_DIRECTORY", ""), ROOT), "it builds another source tree"),
        ("PIPEPLAN_PYTHON_EXECUTABLE" in cache, "it builds no Python module (pybind11 missing, or PIPEPLAN_PYTHON=OFF)"),
        (same(cache.get("PIPEPLAN_PYTHON_EXECUTABLE", ""), interpreter),
         f"its module is for {cache.get('PIPEPLAN_PYTHON_EXECUTABLE')}, not {interpreter}"),
        (cache.get("CMAKE_BUILD_TYPE") in ("Release", "RelWithDebInfo", "MinSizeRel"),
         f"it is a {cache.get('CMAKE_BUILD_TYPE') or 'unoptimised'} build"),
        (cache.get("PIPEPLAN_SANITIZE", "OFF") in ("OFF", "FALSE", "0") and "-fsanitize" not in cache.get("CMAKE_CXX_FLAGS", ""),
         "it is instrumented"),
    ]
    for ok, why in checks:
        if not ok:
            return None, f"{build_dir}: {why}"
    return build_dir, ""


class CMakeBuild(build_ext):
    def build_extension(self, ext: Extension) -> None:
        build_dir, why = reusable_build()
        if build_dir is not None:
            print(f"setup.py: taking the module of the CMake build in {build_dir} (PIPEPLAN_BUILD_DIR=none builds afresh)")
            self.build_target(build_dir, ext)
            return
        print(f"setup.py: building the module afresh ({why})")
        build_dir = Path(self.build_temp).resolve() / "cmake"
        build_dir.mkdir(parents=True, exist_ok=True)
        configure = [
            "cmake", "-S", str(ROOT), "-B", str(build_dir), "-DCMAKE_BUILD_TYPE=Release",
            "-DPIPEPLAN_BUILD_APPS=OFF", "-DPIPEPLAN_BUILD_TESTS=OFF", "-DPIPEPLAN_BUILD_BENCH=OFF",
            "-DPIPEPLAN_GPU=OFF", "-DPIPEPLAN_WERROR=OFF", "-DPIPEPLAN_PYTHON=ON",
            f"-DPython_EXECUTABLE={sys.executable}",
        ] + shlex.split(os.environ.get("PIPEPLAN_CMAKE_ARGS", ""))
        subprocess.run(configure, check=True)
        self.build_target(build_dir, ext)

    def build_target(self, build_dir: Path, ext: Extension) -> None:
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

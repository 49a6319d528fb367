#!/usr/bin/env bash
# Builds pipeplan and pipeplan-gpu here, where the Debian packages are, into build-gpu-bundle/:
# the two programs and the Debian libraries they load (fmt). For a GPU machine that cannot
# install packages, such as the device machines of this workplace (no network): carry the folder
# there and scripts/gpu-check.sh runs it instead of building. CUDA's own libraries (cudart,
# cuBLAS, NCCL) are not copied: gpu-check.sh finds those of the machine it runs on.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v nvcc >/dev/null || [ -x /usr/local/cuda/bin/nvcc ] || {
  echo "gpu-bundle: no CUDA compiler (nvcc) here: pipeplan-gpu cannot be built" >&2
  exit 1
}
cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DPIPEPLAN_BUILD_TESTS=OFF -DPIPEPLAN_BUILD_BENCH=OFF >/dev/null
cmake --build build-gpu -j "$(nproc)" --target pipeplan pipeplan-gpu >/dev/null
rm -rf build-gpu-bundle
mkdir build-gpu-bundle
cp build-gpu/pipeplan build-gpu/pipeplan-gpu build-gpu-bundle/
# The libraries from Debian's -dev packages that the programs load: fmt (CLI11, nlohmann-json and
# Eigen are header-only).
ldd build-gpu/pipeplan build-gpu/pipeplan-gpu | awk '$1 ~ /^libfmt/ {print $3}' | sort -u |
  xargs -r cp -L -t build-gpu-bundle/
du -sh build-gpu-bundle
ls build-gpu-bundle

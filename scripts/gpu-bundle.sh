#!/usr/bin/env bash
# Builds pipeplan and pipeplan-gpu here, where the Debian packages are, into build-gpu-bundle/:
# the two programs, with the CUDA runtime linked in statically and the run path $ORIGIN, and the
# Debian libraries they load (fmt) beside them. For a GPU machine that cannot install packages,
# such as the device machines of this workplace (no network): carry the folder there and
# scripts/gpu-check.sh runs it instead of building. cuBLAS, cuBLASLt and NCCL are not copied
# (hundreds of MB): the target must have them, and a driver for this CUDA; the list is printed
# and written to build-gpu-bundle/NEEDS.txt.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v nvcc >/dev/null || [ -x /usr/local/cuda/bin/nvcc ] || {
  echo "gpu-bundle: no CUDA compiler (nvcc) here: pipeplan-gpu cannot be built" >&2
  exit 1
}
cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DPIPEPLAN_BUILD_TESTS=OFF -DPIPEPLAN_BUILD_BENCH=OFF \
  -DCMAKE_BUILD_WITH_INSTALL_RPATH=ON '-DCMAKE_INSTALL_RPATH=$ORIGIN' >/dev/null
cmake --build build-gpu -j "$(nproc)" --target pipeplan pipeplan-gpu >/dev/null
rm -rf build-gpu-bundle
mkdir build-gpu-bundle
cp build-gpu/pipeplan build-gpu/pipeplan-gpu build-gpu-bundle/
# The libraries from Debian's -dev packages that the programs load: fmt (CLI11, nlohmann-json and
# Eigen are header-only).
ldd build-gpu/pipeplan build-gpu/pipeplan-gpu | awk '$1 ~ /^libfmt/ {print $3}' | sort -u |
  xargs -r cp -L -t build-gpu-bundle/
# What the target must provide: every library the programs load that is not in the folder or
# the C/C++ runtime.
if ldd build-gpu-bundle/pipeplan-gpu | grep -q 'libcudart'; then
  echo "gpu-bundle: pipeplan-gpu loads libcudart: the CUDA runtime should be static" >&2
  exit 1
fi
cuda=$(/usr/local/cuda/bin/nvcc --version 2>/dev/null | sed -n 's/.*release \([0-9.]*\).*/\1/p')
{
  echo "The GPU machine must have, on LD_LIBRARY_PATH or in /usr/local/cuda/lib64 (gpu-check.sh looks there and"
  echo "in Python wheels' nvidia-* folders):"
  ldd build-gpu-bundle/pipeplan-gpu | awk '$1 ~ /^lib(cublas|cublasLt|nccl)\./ {print "  " $1}' | sort -u
  echo "and an NVIDIA driver for CUDA ${cuda:-of this toolkit} (CUDA 13 needs driver 580 or newer)."
} | tee build-gpu-bundle/NEEDS.txt
readelf -d build-gpu-bundle/pipeplan-gpu | grep -E 'RUNPATH|RPATH'
du -sh build-gpu-bundle
ls build-gpu-bundle

#!/usr/bin/env bash
# Installs what pipeplan needs to build and test, from Debian's packages, when it is missing
# (python3 runs the published-runs check and a few CLI cases; emscripten builds the playground,
# scripts/build-web.sh; python3-dev, pybind11-dev and python3-pybind11 build the Python module,
# python3-pytest and python3-numpy test it, and python3-venv, python3-pip, python3-setuptools and
# python3-wheel install it offline).
set -euo pipefail
packages=(cmake g++ make libcli11-dev libfmt-dev nlohmann-json3-dev doctest-dev libbenchmark-dev libxml2-utils libeigen3-dev python3
  emscripten python3-dev pybind11-dev python3-pybind11 python3-pytest python3-numpy python3-venv python3-pip python3-setuptools
  python3-wheel)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
echo "pipeplan setup: installing ${missing[*]}"
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"

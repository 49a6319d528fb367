#!/usr/bin/env bash
# Fails when a C++ or CUDA file git tracks differs from .clang-format (clang-format 14, Debian's).
# Fix with: git ls-files '*.cpp' '*.hpp' '*.h' '*.cu' | xargs clang-format -i
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v clang-format >/dev/null; then
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends clang-format >/dev/null
fi
files=$(git ls-files '*.cpp' '*.hpp' '*.h' '*.cu')
# shellcheck disable=SC2086
if ! clang-format --dry-run --Werror $files 2>/tmp/pipeplan-format.log; then
  grep -E "^[^ ].*: (error|warning):" /tmp/pipeplan-format.log | cut -d: -f1 | sort -u | sed 's/^/not formatted: /'
  echo "check-format: run clang-format -i on the files above (see scripts/check-format.sh)"
  exit 1
fi
echo "check-format: $(echo "$files" | wc -l) files formatted as .clang-format says"

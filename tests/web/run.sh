#!/usr/bin/env bash
# The playground's tests (playground.test.js) in headless Chromium: builds the page
# (scripts/build-web.sh), installs puppeteer-core from package-lock.json into tests/web/node_modules
# (npm ci, once), and compares what the page shows with what PIPEPLAN (the native command line)
# prints. Exits 77, with the reason, where Chromium or emscripten is not installed.
set -euo pipefail
pipeplan=$(realpath "$1")
cd "$(dirname "$0")/../.."
browser=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$browser" ]; then
  echo "SKIP: chromium is not installed (apt-get install chromium); the playground was not tested"
  exit 77
fi
scripts/build-web.sh || exit $?
if [ ! -d tests/web/node_modules/puppeteer-core ] || [ tests/web/package-lock.json -nt tests/web/node_modules ]; then
  (cd tests/web && npm ci --no-audit --no-fund --loglevel=error)
fi
node tests/web/playground.test.js build-web/site "$pipeplan" "$browser"

#!/usr/bin/env bash
# Builds the playground (web/, docs/visualize.md): the library and the command line compiled to
# WebAssembly with emscripten (web/CMakeLists.txt) in build-web/, and the page itself in
# build-web/site/: its HTML and scripts, the wasm, and the model configs of profiles/models/ the
# planner offers. Serve build-web/site/ from any static server, e.g.
# `python3 -m http.server -d build-web/site -b 127.0.0.1 8000`, and open http://127.0.0.1:8000/.
# Exits 77 where emscripten is missing (scripts/setup.sh installs it).
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v emcmake >/dev/null; then
  echo "SKIP: emscripten is not installed (apt-get install emscripten, or scripts/setup.sh); the page was not built"
  exit 77
fi
build=build-web
out=$build/site
# Debian's emscripten keeps its cache under /usr/share/emscripten; a user without write access
# there gets a cache of their own.
if [ ! -w /usr/share/emscripten/cache ]; then export EM_CACHE=${EM_CACHE:-$HOME/.cache/emscripten}; fi
# Its JavaScript optimiser needs Debian's node-acorn, which a node from elsewhere (nodesource's)
# does not look for in /usr/share/nodejs by itself.
export NODE_PATH=${NODE_PATH:+$NODE_PATH:}/usr/share/nodejs
emcmake cmake -S web -B "$build" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$build" -j "$(nproc)"
rm -rf "$out"
mkdir -p "$out/models"
cp "$build/pipeplan.js" "$build/pipeplan.wasm" web/index.html web/args.js web/app.js "$out/"
names=()
for f in profiles/models/*.json; do
  name=$(basename "$f" .json)
  cp "$f" "$out/models/$name.json"
  names+=("\"$name\"")
done
(IFS=,; echo "[${names[*]}]") >"$out/models/index.json"
size=$(cat "$out"/pipeplan.js "$out"/pipeplan.wasm "$out"/args.js "$out"/app.js | wc -c)
echo "build-web: $(du -sh "$out/pipeplan.wasm" | cut -f1) wasm; wasm and scripts $size bytes"
# The issue's bound (issue 28): the page loads in one go on a slow link.
[ "$size" -lt 3000000 ] || { echo "build-web: wasm and scripts are $size bytes, over 3 MB"; exit 1; }

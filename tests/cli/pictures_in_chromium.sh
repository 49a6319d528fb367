#!/usr/bin/env bash
# Draws the pictures a person reads at a glance and opens them in headless Chromium: a comparison
# with memory and a limit, one without memory costs, P = 64 with M = 512, and interleaved P = 32
# with M = 128 as an HTML report. Each must load, hold what the picture promises in its DOM (one
# memory scale across the comparison, the limit in every panel, no memory plot without memory,
# pixel columns instead of 98304 boxes, the critical path) and render to a screenshot. With
# PIPEPLAN_SHOTS=DIR the screenshots are kept there to look at. Skipped (exit 77) where Chromium
# is not installed.
set -u
pipeplan=$1
browser=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$browser" ]; then
  echo "SKIP: chromium is not installed (apt-get install chromium); the pictures were not opened"
  exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
shots=${PIPEPLAN_SHOTS:-$tmp/shots}
mkdir -p "$shots"
flags=(--headless --no-sandbox --disable-gpu --disable-quic --no-first-run --disable-background-networking
       --disable-component-update --disable-sync --hide-scrollbars --user-data-dir="$tmp/profile")
fail() { echo "FAIL: $*"; tail -5 "$tmp/err.txt" 2>/dev/null; exit 1; }
count() { grep -o -- "$1" "$2" | wc -l; }

# Renders FILE to $shots/NAME.png at WIDTH,HEIGHT and checks that a picture came out.
shoot() {
  timeout 60 "$browser" "${flags[@]}" --window-size="$3" --screenshot="$shots/$2.png" "file://$1" \
    >/dev/null 2>>"$tmp/err.txt"
  local size
  size=$(stat -c %s "$shots/$2.png" 2>/dev/null || echo 0)
  [ "$size" -ge 10000 ] || fail "no screenshot of $2, or an empty one ($size bytes)"
}
# The DOM Chromium built from FILE, into $tmp/dom.html.
dom() { timeout 60 "$browser" "${flags[@]}" --dump-dom "file://$1" >"$tmp/dom.html" 2>>"$tmp/err.txt"; }

# 1F1B, ZB-H1, ZB-H2 with a_F = 1 GiB: peaks 4, 4 and 7 GiB (schedules.md), limit 7.5 GiB above them.
"$pipeplan" compare --schedules 1f1b,zbh1,zbh2 --stages 4 --microbatches 8 --memory 1GiB,256MiB \
  --memory-limit 7.5GiB --svg "$tmp/compare.svg" >/dev/null || fail "compare --svg"
shoot "$tmp/compare.svg" compare 1320,1150
dom "$tmp/compare.svg"
[ "$(count '>7.50 GiB</text>' "$tmp/dom.html")" -eq 3 ] || fail "the three panels do not share the 7.5 GiB memory scale"
[ "$(count 'class="limit"' "$tmp/dom.html")" -eq 3 ] || fail "the limit is not drawn in each of the three panels"
[ "$(count 'class="critical"' "$tmp/dom.html")" -eq 3 ] || fail "a panel has no critical path"

"$pipeplan" compare --schedules 1f1b,zbv --stages 4 --microbatches 8 --svg "$tmp/bare.svg" >/dev/null || fail "compare"
shoot "$tmp/bare.svg" compare-no-memory 1320,420
dom "$tmp/bare.svg"
[ "$(count 'class="memory"' "$tmp/dom.html")" -eq 0 ] || fail "a memory plot without memory costs"
[ "$(count 'later chunk</text>' "$tmp/dom.html")" -eq 3 ] || fail "ZB-V's lighter later chunks are not in the legend"

"$pipeplan" generate --schedule zbh1 --stages 64 --microbatches 512 -o "$tmp/z64.json" || fail "generate"
"$pipeplan" export "$tmp/z64.json" --format svg --memory 1GiB,256MiB -o "$tmp/z64.svg" || fail "export svg"
shoot "$tmp/z64.svg" zbh1-p64-m512 1320,860
dom "$tmp/z64.svg"
[ "$(count 'class="op"' "$tmp/dom.html")" -eq 0 ] || fail "P = 64, M = 512 drew a box per op"
[ "$(count 'class="lane"' "$tmp/dom.html")" -eq 64 ] || fail "P = 64 does not have 64 lanes"

"$pipeplan" generate --schedule interleaved --stages 32 --microbatches 128 -o "$tmp/i32.json" || fail "generate"
"$pipeplan" export "$tmp/i32.json" --format html -o "$tmp/i32.html" || fail "export html"
shoot "$tmp/i32.html" interleaved-p32-m128 1400,1400
dom "$tmp/i32.html"
[ "$(count 'id="critical"' "$tmp/dom.html")" -eq 1 ] || fail "the report lists no critical path"
[ "$(count 'class="critical"' "$tmp/dom.html")" -eq 1 ] || fail "the report's timeline marks no critical path"

echo "ok: Chromium drew the comparison, the bare comparison, P = 64 and interleaved P = 32 (screenshots in $shots)"

#!/usr/bin/env bash
# Opens an HTML report in headless Chromium: the page must load, hold every op of the timeline in
# its DOM, and render to a screenshot. Skipped (exit 77) where Chromium is not installed.
set -u
pipeplan=$1
browser=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$browser" ]; then
  echo "SKIP: chromium is not installed (apt-get install chromium); the HTML report was not opened"
  exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$pipeplan" export schedules/zbh1-p4-m8.json --format html --memory 1GiB,256MiB -o "$tmp/report.html" || exit 1
flags=(--headless --no-sandbox --disable-gpu --disable-quic --no-first-run --disable-background-networking
       --disable-component-update --disable-sync --user-data-dir="$tmp/profile")
timeout 60 "$browser" "${flags[@]}" --dump-dom "file://$tmp/report.html" >"$tmp/dom.html" 2>"$tmp/err.txt"
ops=$(grep -o 'class="op"' "$tmp/dom.html" | wc -l)
if [ "$ops" -ne 96 ]; then
  echo "FAIL: the page's DOM holds $ops op boxes, expected 96 (ZB-H1, 4 devices x 8 micro-batches x 3)"
  tail -5 "$tmp/err.txt"
  exit 1
fi
timeout 60 "$browser" "${flags[@]}" --window-size=1400,900 --screenshot="$tmp/shot.png" "file://$tmp/report.html" \
  >/dev/null 2>>"$tmp/err.txt"
size=$(stat -c %s "$tmp/shot.png" 2>/dev/null || echo 0)
if [ "$size" -lt 10000 ]; then
  echo "FAIL: no screenshot, or an empty one ($size bytes)"
  tail -5 "$tmp/err.txt"
  exit 1
fi
echo "ok: Chromium loaded the report (96 op boxes in the DOM) and rendered a $size-byte screenshot"

#!/usr/bin/env bash
# kill -9 in the middle of writing a large output leaves no temporary file (issue 16): the
# content goes into an unnamed O_TMPFILE, which has a name only once it is complete. The script
# watches /proc/PID/fd until pipeplan holds a file open in the output folder, which is the write
# itself, and kills it there; with a named temporary file (the old way) dest.json.tmp-XXXX stayed.
set -u
pipeplan=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/out"
# 1F1B, P = 16, M = 60000: 1.9 million ops, about 90 MB of JSON, written in one go at the end.
args=(generate --schedule 1f1b --stages 16 --microbatches 60000 -o "$tmp/out/dest.json")
for attempt in 1 2 3 4 5 6 7 8; do
  "$pipeplan" "${args[@]}" &
  pid=$!
  caught=0
  while kill -0 "$pid" 2>/dev/null; do
    if ls -l "/proc/$pid/fd" 2>/dev/null | grep -q -- "-> $tmp/out/"; then
      kill -9 "$pid"
      caught=1
      break
    fi
  done
  wait "$pid" 2>/dev/null
  if [ "$caught" -eq 1 ]; then
    # Killed just after the link, the output is there whole; nothing else may be.
    if [ -e "$tmp/out/dest.json" ] && [ "$(tail -c 2 "$tmp/out/dest.json")" != "}" ]; then
      echo "FAIL: killed during the write (attempt $attempt), and dest.json is there but cut short"
      exit 1
    fi
    left=$(ls -A "$tmp/out" | grep -vx dest.json)
    if [ -n "$left" ]; then
      echo "FAIL: killed during the write (attempt $attempt), and the folder holds: $left"
      exit 1
    fi
    echo "ok: killed with -9 during the write (attempt $attempt), no file left behind"
    exit 0
  fi
  rm -f "$tmp/out/dest.json"  # finished before it was seen writing: try again
done
echo "FAIL: never caught pipeplan while it was writing in 8 attempts"
exit 1

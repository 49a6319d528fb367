#!/usr/bin/env bash
# Regenerates the pictures under docs/img/ from the current build, so the docs show what
# pipeplan draws today. Run after ./scripts/build.sh. With Chromium installed, PIPEPLAN_SHOTS=DIR
# bash tests/cli/pictures_in_chromium.sh build/pipeplan renders them to PNGs to look at.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=./build/pipeplan
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for s in 1f1b zbh1 zbh2; do
  $bin generate --schedule "$s" --stages 4 --microbatches 8 -o "$tmp/$s.json"
  $bin export "$tmp/$s.json" --format svg --costs 1,1,1 --memory 1GiB,256MiB --memory-limit 4.5GiB \
    -o "docs/img/$s-p4-m8.svg"
done
$bin generate --schedule zbv --stages 4 --microbatches 8 -o "$tmp/zbv.json"
$bin export "$tmp/zbv.json" --format svg --costs 1,1,1 --memory 1GiB,256MiB -o docs/img/zbv-p4-m8.svg
$bin generate --schedule zb --stages 4 --microbatches 16 --profile profiles/example-p4.json --memory-limit 12GiB \
  -o "$tmp/zb.json"
$bin export "$tmp/zb.json" --format svg --profile profiles/example-p4.json --memory-limit 12GiB \
  -o docs/img/zb-example-p4-m16.svg
# A comparison on one time scale and one memory scale, the limit in each panel.
$bin compare --schedules 1f1b,zbh1,zbh2 --stages 4 --microbatches 8 --memory 1GiB,256MiB --memory-limit 7.5GiB \
  --svg docs/img/compare-p4-m8.svg >/dev/null
# Many devices and micro-batches: ops narrower than a pixel, drawn as pixel columns.
$bin generate --schedule interleaved --stages 32 --microbatches 128 -o "$tmp/i32.json"
$bin export "$tmp/i32.json" --format svg --transfer 0.05 -o docs/img/interleaved-p32-m128.svg

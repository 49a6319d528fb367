#!/usr/bin/env bash
# Every format of `pipeplan export --format` (read from the command's own help, so a new row of
# cmd_export.cpp's kFormats is checked without an edit here) holds to its row:
# - it writes the same bytes twice, to standard output and through -o;
# - a timed format's output changes with the costs and an untimed one refuses the cost flags
#   (exit 2), so --costs is never ignored;
# - --memory-limit changes what a format that draws it writes and is refused by the others;
# - --with-comms changes what a format that takes it writes and is refused by the others.
# The formats' own contents are checked by their writers' unit tests and by the export_* cases.
set -u
pipeplan=$1
failed=0
complain() { echo "FAIL: $*"; failed=1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
schedule=schedules/zbh1-p4-m8.json

formats=$("$pipeplan" export --help | sed -n 's/.*--format FORMAT:{\([a-z,]*\)}.*/\1/p' | tr ',' ' ')
[ -n "$formats" ] || { echo "FAIL: no format list in 'pipeplan export --help'"; exit 1; }
[ "$(wc -w <<<"$formats")" -ge 5 ] || complain "fewer formats than the five of issue 17: $formats"

# run NAME ARGS...: exports into $tmp/NAME, echoing the exit code.
run() {
  local name=$1
  shift
  "$pipeplan" export "$schedule" "$@" >"$tmp/$name" 2>"$tmp/$name.err"
  echo $?
}

for f in $formats; do
  [ "$(run "$f.a" --format "$f")" = 0 ] || { complain "$f: export failed: $(cat "$tmp/$f.a.err")"; continue; }
  [ -s "$tmp/$f.a" ] || complain "$f: wrote nothing"
  run "$f.b" --format "$f" >/dev/null
  cmp -s "$tmp/$f.a" "$tmp/$f.b" || complain "$f: two runs differ"
  "$pipeplan" export "$schedule" --format "$f" -o "$tmp/$f.o" || complain "$f: -o failed"
  cmp -s "$tmp/$f.a" "$tmp/$f.o" || complain "$f: -o differs from standard output"

  for flags in "--costs 2,3,1" "--memory-limit 1GiB" "--with-comms"; do
    first=${flags%% *}
    # The memory limit is drawn against the memory: both runs get --memory where the format is
    # timed, so the limit is the only change; an untimed one takes neither.
    base=()
    if [ "$first" = --memory-limit ] && [ "$(run "$f.m" --format "$f" --memory 1GiB,256MiB)" = 0 ]; then
      base=(--memory 1GiB,256MiB)
    fi
    run "$f.base" --format "$f" "${base[@]}" >/dev/null
    # shellcheck disable=SC2086
    code=$(run "$f.flag" --format "$f" "${base[@]}" $flags)
    if [ "$code" = 0 ]; then
      cmp -s "$tmp/$f.base" "$tmp/$f.flag" && complain "$f: $first accepted but changes nothing"
    elif [ "$code" = 2 ]; then
      grep -q -- "$first" "$tmp/$f.flag.err" || complain "$f: $first refused without naming it: $(cat "$tmp/$f.flag.err")"
    else
      complain "$f: $first exited $code: $(cat "$tmp/$f.flag.err")"
    fi
  done
done

# Each flag is taken by at least one format: the table's flags are not all refusals.
for first in --costs --memory-limit --with-comms; do
  taken=0
  for f in $formats; do
    case $first in
      --costs) args=(--costs 2,3,1) ;;
      --memory-limit) args=(--memory-limit 1GiB --memory 1GiB,256MiB) ;;
      --with-comms) args=(--with-comms) ;;
    esac
    [ "$(run "$f.t" --format "$f" "${args[@]}")" = 0 ] && taken=1
  done
  [ $taken = 1 ] || complain "$first: no format takes it"
done

[ $failed = 0 ] && echo "every export format holds to its row: $formats"
exit $failed

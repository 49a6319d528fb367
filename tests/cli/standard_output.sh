#!/usr/bin/env bash
# A failed write to standard output is an error naming it, exit 1, in every command (issue 31,
# item 1): stdout on /dev/full (ENOSPC), the same through `-o -`, and a closed stdout (EBADF).
# The same commands with stdout on /dev/null succeed, so each failure is the write's.
set -u
pipeplan=$1
failed=0
complain() { echo "FAIL: $*"; failed=1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# One command line for each subcommand of `pipeplan --help`, each writing to standard output;
# the list is held to the help's list below, so a new command cannot be missed.
model=tests/data/models/tiny-llama.json
cases=(
  "list"
  "generate --schedule 1f1b --stages 4 --microbatches 8"
  "simulate schedules/zbh1-p4-m8.json"
  "validate schedules/zbh1-p4-m8.json"
  "compare --schedules 1f1b,zbh1 --stages 4 --microbatches 8"
  "export schedules/zbh1-p4-m8.json --format csv"
  "import tests/data/pytorch/two_rank_compute.csv"
  "lower schedules/zbh1-p4-m8.json --policy early"
  "gpus"
  "profile --model $model --gpu h100 --stages 2"
  "plan --model $model --gpu h100 --gpus 8 --global-batch 32 --seq 256 --top 1"
  "--help"
)
# Commands that take -o: the same through `-o -`.
dash_cases=(
  "generate --schedule 1f1b --stages 4 --microbatches 8 -o -"
  "simulate schedules/zbh1-p4-m8.json --json -o -"
  "export schedules/zbh1-p4-m8.json --format chrome -o -"
  "import tests/data/pytorch/two_rank_compute.csv -o -"
  "lower schedules/zbh1-p4-m8.json --policy early -o -"
  "profile --model $model --gpu h100 --stages 2 -o -"
)

listed=$("$pipeplan" --help | sed -n '/^Subcommands:/,$p' | awk 'NR > 1 && NF {print $1}' | sort)
covered=$(for c in "${cases[@]}"; do echo "${c%% *}"; done | grep -v '^--' | sort)
[ "$listed" = "$covered" ] || complain "the cases do not cover every command: help lists $(echo $listed), cases $(echo $covered)"

check() {  # check NAME EXPECTED_REASON -- ARGS... (stdout already redirected by the caller)
  local name=$1 reason=$2 code=$3
  [ "$code" -eq 1 ] || complain "$name: exit $code, expected 1"
  grep -q "^pipeplan: error: cannot write standard output: $reason" "$tmp/err" ||
    complain "$name: stderr: $(head -c 300 "$tmp/err")"
  [ "$(grep -c 'cannot write standard output' "$tmp/err")" -eq 1 ] || complain "$name: the error is said more than once"
}

for c in "${cases[@]}" "${dash_cases[@]}"; do
  read -r -a args <<<"$c"
  "$pipeplan" "${args[@]}" >/dev/null 2>"$tmp/err" || complain "$c: fails on /dev/null: $(cat "$tmp/err")"
  "$pipeplan" "${args[@]}" >/dev/full 2>"$tmp/err"
  check "$c > /dev/full" "No space left on device" $?
  "$pipeplan" "${args[@]}" >&- 2>"$tmp/err"
  check "$c >&-" "Bad file descriptor" $?
done

# A closed stdout never lends its number to an output file: the schedule goes whole to the file.
"$pipeplan" generate --schedule 1f1b --stages 2 --microbatches 2 -o "$tmp/s.json" >&- 2>"$tmp/err" ||
  complain "-o FILE with stdout closed failed: $(cat "$tmp/err")"
"$pipeplan" generate --schedule 1f1b --stages 2 --microbatches 2 | cmp -s - "$tmp/s.json" ||
  complain "-o FILE with stdout closed wrote something else"

# A usage error keeps its exit code 2 when stdout fails too (nothing was written to it here).
"$pipeplan" generate --schedule nope --stages 2 --microbatches 2 >/dev/full 2>"$tmp/err"
code=$?
[ "$code" -eq 2 ] || complain "a usage error with stdout on /dev/full: exit $code, expected 2"

[ "$failed" -eq 0 ] && echo "ok: every command reports a failed write to standard output"
exit "$failed"

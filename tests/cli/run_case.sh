#!/usr/bin/env bash
# One CLI test: run pipeplan with the arguments after "--" and check what it did.
#   run_case.sh PIPEPLAN [--exit N] [--out REGEX]... [--err REGEX]... [--golden FILE]
#               [--absent PATH]... [--before CMD] [--then CMD] -- ARGS...
# @TMP@ in any argument becomes a fresh scratch folder. --out and --err are extended regular
# expressions that stdout or stderr must match; --golden compares stdout byte for byte;
# --absent names a file that must not exist afterwards; --before runs a shell command first (to
# make an input; $PIPEPLAN is the binary, $SOURCE_DIR the repository) and --then a shell check
# afterwards, both in @TMP@.
set -u
pipeplan=$1
shift
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
expect_exit=0
outs=() errs=() absents=() golden="" before="" then=""
while [ $# -gt 0 ] && [ "$1" != "--" ]; do
  case $1 in
    --exit) expect_exit=$2 ;;
    --out) outs+=("$2") ;;
    --err) errs+=("$2") ;;
    --golden) golden=$2 ;;
    --absent) absents+=("${2//@TMP@/$tmp}") ;;
    --before) before=${2//@TMP@/$tmp} ;;
    --then) then=${2//@TMP@/$tmp} ;;
    *) echo "run_case.sh: unknown option $1" >&2; exit 2 ;;
  esac
  shift 2
done
shift
args=()
for a in "$@"; do args+=("${a//@TMP@/$tmp}"); done

export PIPEPLAN=$pipeplan
export SOURCE_DIR=$PWD  # the repository root, for --before and --then, which run in @TMP@
if [ -n "$before" ] && ! (cd "$tmp" && bash -c "$before"); then
  echo "FAIL: set-up failed: $before"
  exit 1
fi
"$pipeplan" "${args[@]}" >"$tmp/stdout" 2>"$tmp/stderr"
code=$?
failed=0
complain() { echo "FAIL: $*"; failed=1; }
[ "$code" -eq "$expect_exit" ] || complain "exit code $code, expected $expect_exit"
for re in "${outs[@]+"${outs[@]}"}"; do grep -Eq -- "$re" "$tmp/stdout" || complain "stdout does not match: $re"; done
for re in "${errs[@]+"${errs[@]}"}"; do grep -Eq -- "$re" "$tmp/stderr" || complain "stderr does not match: $re"; done
if [ -n "$golden" ] && ! diff -u "$golden" "$tmp/stdout"; then complain "stdout differs from $golden"; fi
for f in "${absents[@]+"${absents[@]}"}"; do [ ! -e "$f" ] || complain "$f exists but should not"; done
if [ -n "$then" ] && ! (cd "$tmp" && bash -c "$then"); then complain "check failed: $then"; fi
if [ "$failed" -ne 0 ]; then
  echo "--- command: pipeplan ${args[*]}"
  echo "--- stdout:"; head -c 4000 "$tmp/stdout"
  echo "--- stderr:"; cat "$tmp/stderr"
  exit 1
fi
echo "ok: pipeplan ${args[*]}"

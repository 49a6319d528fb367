#!/usr/bin/env bash
# Reading from every kind of path, and text from files on its way out (issue 16): "-",
# /dev/stdin and pipes are standard input for every reader; a folder, an empty device and a
# binary stream are errors naming them; a CSV with a UTF-8 byte-order mark is read; control
# characters in a schedule's name keep the SVG and the HTML well-formed XML (xmllint) and never
# reach the terminal raw.
set -u
pipeplan=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failed=0
complain() { echo "FAIL: $*"; failed=1; }
schedule=schedules/zbh1-p4-m8.json
golden=tests/golden/simulate-zbh1-p4-m8.txt
costs=(--costs 1,1,1 --memory 1GiB,256MiB)

# A pipe into "simulate -" and into /dev/stdin gives the summary of the file itself.
cat "$schedule" | "$pipeplan" simulate - "${costs[@]}" | cmp -s - "$golden" || complain "simulate - from a pipe"
cat "$schedule" | "$pipeplan" simulate /dev/stdin "${costs[@]}" | cmp -s - "$golden" || complain "simulate /dev/stdin from a pipe"
"$pipeplan" simulate - "${costs[@]}" <"$schedule" | cmp -s - "$golden" || complain "simulate - from a redirect"
# Every reader: a profile, a CSV, a model config.
cat profiles/example-p4.json | "$pipeplan" simulate "$schedule" --profile - >/dev/null || complain "--profile -"
"$pipeplan" export "$schedule" --format csv >"$tmp/s.csv"
cat "$tmp/s.csv" | "$pipeplan" import - -o "$tmp/back.json" 2>/dev/null || complain "import -"
cat profiles/models/llama-2-7b.json | "$pipeplan" profile --model - --gpu h100 --stages 2 >/dev/null || complain "profile --model -"
# Standard input can be read once.
"$pipeplan" simulate - --profile - </dev/null 2>"$tmp/err"
[ $? -eq 2 ] || complain "stdin twice: exit code, expected 2"
grep -q -- "--profile -: standard input is already read by the input" "$tmp/err" || complain "stdin twice: $(cat "$tmp/err")"

# A folder, an empty device and an endless binary one: exit 1, the file named.
expect_error() {  # expect_error PATH MESSAGE
  "$pipeplan" simulate "$1" >/dev/null 2>"$tmp/err"
  local code=$?
  [ "$code" -eq 1 ] || complain "simulate $1: exit code $code, expected 1"
  grep -qF "cannot read $1: $2" "$tmp/err" || complain "simulate $1: $(cat "$tmp/err")"
}
expect_error "$tmp" "it is a directory"
expect_error /dev/null "it is empty"
expect_error /dev/zero "not a text file"

# A CSV saved with a UTF-8 byte-order mark (Excel does) reads as the same schedule.
{ printf '\xef\xbb\xbf'; cat "$tmp/s.csv"; } >"$tmp/bom.csv"
"$pipeplan" import "$tmp/bom.csv" -o "$tmp/bom.json" 2>"$tmp/err" || complain "CSV with a BOM: $(cat "$tmp/err")"
# The same schedule, but for its name, which is the file's.
diff <(grep -v '"name"' "$tmp/back.json") <(grep -v '"name"' "$tmp/bom.json") >/dev/null ||
  complain "the CSV with a BOM gave another schedule"

# Control characters and an ANSI escape in the name: well-formed SVG and HTML, a quiet terminal.
sed 's/"name": "zbh1"/"name": "zbh1\\u0001\\u0007\\u001b[2J\\u001b]0;owned\\u0007 <\&>"/' "$schedule" >"$tmp/n.json"
grep -q 'u001b' "$tmp/n.json" || complain "set-up: the name was not changed"
"$pipeplan" export "$tmp/n.json" --format svg -o "$tmp/n.svg" && xmllint --noout "$tmp/n.svg" || complain "SVG not well-formed"
"$pipeplan" export "$tmp/n.json" --format html -o "$tmp/n.html" && xmllint --noout "$tmp/n.html" || complain "HTML not well-formed"
"$pipeplan" simulate "$tmp/n.json" >"$tmp/summary.txt" || complain "simulate with the odd name"
"$pipeplan" export "$tmp/n.json" --format text >>"$tmp/summary.txt" || complain "export text with the odd name"
"$pipeplan" validate "$tmp/n.json" >>"$tmp/summary.txt" || complain "validate with the odd name"
if LC_ALL=C grep -q $'[\x01\x07\x1b]' "$tmp/summary.txt"; then complain "a control character reached stdout raw"; fi
grep -qF 'zbh1\x01\x07\x1b[2J\x1b]0;owned\x07 <&>' "$tmp/summary.txt" || complain "the name is not shown escaped"
# In an error message too: the file name is the user's, and shown as typed, escapes escaped.
"$pipeplan" simulate $'\e[2Jno-such.json' 2>"$tmp/err"
if LC_ALL=C grep -q $'\x1b' "$tmp/err"; then complain "a control character reached stderr raw"; fi
grep -qF 'cannot read \x1b[2Jno-such.json' "$tmp/err" || complain "error: $(cat "$tmp/err")"

[ "$failed" -eq 0 ] || exit 1
echo "ok: standard input, pipes, folders, devices, a BOM and control characters"

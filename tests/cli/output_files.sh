#!/usr/bin/env bash
# Writing to every kind of path (issue 16): a device or a FIFO is written in place and stays what
# it is, /dev/full is an error naming the file, a symbolic link is followed and stays a link, a
# regular file keeps its mode, a read-only one is refused even for root, a folder is refused.
# The devices are private ones made with mknod in a scratch folder: the system's /dev/null is
# never touched. Skipped (77) where mknod is not allowed (not root, or a container without
# CAP_MKNOD).
set -u
pipeplan=$1
tmp=$(mktemp -d)
reader=""
trap '[ -n "$reader" ] && kill "$reader" 2>/dev/null; rm -rf "$tmp"' EXIT
failed=0
complain() { echo "FAIL: $*"; failed=1; }
generate() { "$pipeplan" generate --schedule 1f1b --stages 2 --microbatches 2 "$@"; }

if ! mknod "$tmp/null" c 1 3 2>/dev/null || ! mknod "$tmp/full" c 1 7 2>/dev/null; then
  echo "SKIP: mknod is not allowed here; the device cases did not run"
  exit 77
fi

# A character device: written in place, still a device afterwards.
generate -o "$tmp/null" || complain "writing to a null device failed"
[ -c "$tmp/null" ] || complain "the null device was replaced: $(stat -c %F "$tmp/null")"

# /dev/full: ENOSPC is an error naming the file, and the device stays.
if generate -o "$tmp/full" 2>"$tmp/err"; then complain "writing to a full device succeeded"; fi
grep -q "cannot write $tmp/full: No space left on device" "$tmp/err" || complain "full device: $(cat "$tmp/err")"
[ -c "$tmp/full" ] || complain "the full device was replaced"

# Two outputs on one character device are fine (nothing to lose), unlike two on one file.
"$pipeplan" simulate schedules/1f1b-p4-m8.json -o "$tmp/null" --svg "$tmp/null" >/dev/null ||
  complain "-o and --svg on one device were refused"

# A FIFO with a reader: the reader gets the whole schedule, the FIFO stays a FIFO.
mkfifo "$tmp/fifo"
timeout 20 cat "$tmp/fifo" >"$tmp/from_fifo" &
reader=$!
generate -o "$tmp/fifo" || complain "writing to a FIFO failed"
wait "$reader"
reader=""
[ -p "$tmp/fifo" ] || complain "the FIFO was replaced"
generate | cmp -s - "$tmp/from_fifo" || complain "the FIFO's reader did not get the schedule"

# A symbolic link: the target gets the content, the link stays a link; a relative link too.
mkdir "$tmp/real"
echo old >"$tmp/real/target.json"
ln -s real/target.json "$tmp/link.json"
generate -o "$tmp/link.json" || complain "writing through a link failed"
[ -L "$tmp/link.json" ] || complain "the link was replaced by a file"
grep -q '"format": "pipeplan.schedule"' "$tmp/real/target.json" || complain "the link's target was not written"
# A dangling link creates its target.
ln -s real/new.json "$tmp/dangling.json"
generate -o "$tmp/dangling.json" || complain "writing through a dangling link failed"
[ -L "$tmp/dangling.json" ] && [ -f "$tmp/real/new.json" ] || complain "the dangling link's target was not created"

# A regular file keeps its mode (and its owner: root may keep any).
echo old >"$tmp/private.json"
chmod 0640 "$tmp/private.json"
chown 12345:12345 "$tmp/private.json" 2>/dev/null && owner=12345:12345 || owner=$(stat -c %u:%g "$tmp/private.json")
generate -o "$tmp/private.json" || complain "replacing a 0640 file failed"
[ "$(stat -c %a "$tmp/private.json")" = 640 ] || complain "mode $(stat -c %a "$tmp/private.json"), expected 640"
[ "$(stat -c %u:%g "$tmp/private.json")" = "$owner" ] || complain "owner $(stat -c %u:%g "$tmp/private.json"), expected $owner"
grep -q pipeplan.schedule "$tmp/private.json" || complain "the 0640 file was not replaced"

# A new file gets 0666 less the umask.
(umask 022 && generate -o "$tmp/new.json") || complain "writing a new file failed"
[ "$(stat -c %a "$tmp/new.json")" = 644 ] || complain "new file mode $(stat -c %a "$tmp/new.json"), expected 644"

# A read-only file is refused, even for root, and stays as it was.
echo keep >"$tmp/readonly.json"
chmod 0444 "$tmp/readonly.json"
if generate -o "$tmp/readonly.json" 2>"$tmp/err"; then complain "a read-only file was overwritten"; fi
grep -q "cannot write $tmp/readonly.json: the file is read-only" "$tmp/err" || complain "read-only: $(cat "$tmp/err")"
[ "$(cat "$tmp/readonly.json")" = keep ] || complain "the read-only file changed"

# A folder is refused by name.
if generate -o "$tmp/real" 2>"$tmp/err"; then complain "a folder was written"; fi
grep -q "cannot write $tmp/real: it is a directory" "$tmp/err" || complain "folder: $(cat "$tmp/err")"

# No temporary file is left anywhere.
leftovers=$(find "$tmp" -name '*.tmp-*')
[ -z "$leftovers" ] || complain "temporary files left: $leftovers"

[ "$failed" -eq 0 ] || exit 1
echo "ok: devices, FIFO, links, modes, read-only files and folders"

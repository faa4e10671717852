#!/bin/sh
# Memory and CPU time of a batch over many tiny files, and of report merge
# over its reports (benchmarks/RESULTS.md, "Millions of files").
#
#   [OUT_DIR=/dev/shm/out] benchmarks/many_files.sh JETFILTER N [WORKDIR]
#
# The inputs are N hard links to 8x8 PNGs, 1,000 to a folder (links cost
# no disk; the walk and the batch see N files).  Measured with GNU time:
# peak RSS, user and system CPU (the system's is mostly the file system's,
# making and removing outputs; OUT_DIR on a tmpfs steadies it) of
#   denoise (median k=3) without and with --json, and one shard of eight;
#   report merge of the whole report, and of eight shard reports.
# Prints one line per run; WORKDIR (default /tmp/jf-many) is removed at
# the end unless KEEP=1.
set -eu
jf=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
n=$2
work=${3:-/tmp/jf-many}
command -v /usr/bin/time > /dev/null || { echo "needs GNU time (apt-get install time)" >&2; exit 2; }
rm -rf "$work"
mkdir -p "$work/in"
python3 - "$work" "$n" << 'EOF'
import os, struct, sys, zlib
work, n = sys.argv[1], int(sys.argv[2])
def chunk(kind, data):
    body = kind + data
    return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))
rows = b"".join(b"\0" + bytes((x * 37 + y * 11) & 255 for x in range(8)) for y in range(8))
png = (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 8, 8, 8, 0, 0, 0, 0))
       + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b""))
for i in range(n):
    d = os.path.join(work, "in", "d%04d" % (i // 1000))
    if i % 1000 == 0:  # a file per folder: a file system limits its links
        os.mkdir(d)
        src = os.path.join(work, "one-%d.png" % (i // 1000))
        open(src, "wb").write(png)
    os.link(src, os.path.join(d, "f%04d.png" % (i % 1000)))
EOF
out=${OUT_DIR:-$work/out}
measure() { # label, command...
  label=$1; shift
  rm -rf "$out"
  /usr/bin/time -f "%M %U %S %e" -o "$work/time" "$@" > /dev/null 2> "$work/err" || {
    echo "$label: exit $? ($(tail -n 2 "$work/err"))" >&2; }
  read -r kb user sys wall < "$work/time"
  awk -v l="$label" -v kb="$kb" -v u="$user" -v s="$sys" -v w="$wall" -v n="$n" 'BEGIN {
    printf "%-36s peak RSS %7.1f MB  user %6.2f s (%.1f us a file)  system %6.2f s  wall %7.2f s\n",
           l, kb / 1024, u, u * 1e6 / n, s, w }'
}
set -- "$jf" denoise "$work/in" -o "$out" -k 3 --no-sync --quiet
measure "denoise $n files" "$@"
measure "denoise $n files --json" "$@" --json "$work/all.json"
measure "denoise $n files shard 0/8 --json" "$@" --shard 0/8 --json "$work/s0.json"
for i in 1 2 3 4 5 6 7; do
  "$@" --shard $i/8 --json "$work/s$i.json" > /dev/null 2>&1 || true
done
measure "report merge 1 report of $n" "$jf" report merge "$work/all.json" -o "$work/m1.json"
measure "report merge 8 reports of $n/8" "$jf" report merge "$work"/s?.json -o "$work/m8.json"
ls -l "$work/all.json" | awk '{ printf "report of %s files: %.1f MB\n", '"$n"', $5 / 1048576 }'
rm -rf "$out"
[ "${KEEP:-0}" = 1 ] || rm -rf "$work"

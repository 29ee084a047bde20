#!/bin/bash
# Records the runs `iospd compare`'s suite test judges (tests/data/compare/): identical runs of one
# workload back to back on a quiet machine, the same with one busy process per CPU beside them, and
# runs with a known change of the device (its IOPS capped by the blkio cgroup's throttle, same
# command line). Each run's JSON is kept compressed with zstd. Run it as root with nothing else
# running: the quiet series must be quiet.
set -eu
I=${IOSPD:-$(dirname "$0")/../target/release/iospd}
OUT=${OUT:-$(dirname "$0")/../tests/data/compare}
DIR=${DIR:-/tmp/iospd-pairs}
N=${N:-8}
CAP=${CAP:-2000}
RUN=(-d3 -W1 -D100 -b4K -r -o8 -w30 -Sh -L -Rjson)
mkdir -p "$DIR" "$OUT"
[ -f "$DIR/n.dat" ] || "$I" -c256M -d1 -W0 -Sh "$DIR/n.dat" > /dev/null
device=$(lsblk -no MAJ:MIN "$(df --output=source "$DIR" | tail -1)" | head -1 | tr -d ' ')
record() { "$I" "${RUN[@]}" "$DIR/n.dat" 2>/dev/null | zstd -q -19 > "$OUT/$1.json.zst"; }
for i in $(seq 1 "$N"); do record "quiet-$i"; done
busy=()
for _ in $(seq "$(nproc)"); do sh -c 'while :; do :; done' & busy+=($!); done
for i in $(seq 1 "$N"); do record "busy-$i"; done
kill "${busy[@]}"
# The known change: the same command line on the device capped at $CAP reads and writes a second.
cg=/sys/fs/cgroup/blkio/iospd-pairs
mkdir -p "$cg"
trap 'rmdir "$cg" 2>/dev/null || true' EXIT
echo "$device $CAP" > "$cg/blkio.throttle.read_iops_device"
echo "$device $CAP" > "$cg/blkio.throttle.write_iops_device"
for i in $(seq 1 4); do
  sh -c "echo \$\$ > $cg/cgroup.procs; exec \"\$@\"" _ "$I" "${RUN[@]}" "$DIR/n.dat" 2>/dev/null |
    zstd -q -19 > "$OUT/capped-$i.json.zst"
done
echo "$device 0" > "$cg/blkio.throttle.read_iops_device"
echo "$device 0" > "$cg/blkio.throttle.write_iops_device"
rm -rf "$DIR"
for f in "$OUT"/*.json.zst; do
  printf '%-20s %s\n' "$(basename "$f")" "$(zstd -dc "$f" | python3 -c 'import json,sys; t=json.load(sys.stdin)["timespans"][0]["measured"]["totals"]; print("read %.0f write %.0f IOPS" % (t["read"]["ios_per_s"], t["write"]["ios_per_s"]))')"
done

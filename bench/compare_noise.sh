#!/bin/bash
# How often does `iospd compare` call two identical back-to-back runs "within noise"?
# 20 pairs of 3-second random-read runs on a 256 MiB file in $DIR (default /tmp/iospd-noise),
# with the release binary; prints each pair's read IOPS line and the count. Run nothing else
# meanwhile: a compile in parallel is a real change of the machine, and compare says so.
set -eu
I=${IOSPD:-$(dirname "$0")/../target/release/iospd}
DIR=${DIR:-/tmp/iospd-noise}
mkdir -p "$DIR"
[ -f "$DIR/n.dat" ] || "$I" -c256M -d1 -W0 -Sh "$DIR/n.dat" > /dev/null
within=0
for i in $(seq 1 20); do
  "$I" -d3 -W1 -D100 -b4K -r -o8 -Sh -L -Rjson "$DIR/n.dat" > "$DIR/a.json" 2>/dev/null
  "$I" -d3 -W1 -D100 -b4K -r -o8 -Sh -L -Rjson "$DIR/n.dat" > "$DIR/b.json" 2>/dev/null
  line=$("$I" compare "$DIR/a.json" "$DIR/b.json" | grep "read  IOPS")
  echo "$line"
  case "$line" in *"within noise") within=$((within + 1)) ;; esac
done
echo "within noise: $within of 20"
rm -rf "$DIR"

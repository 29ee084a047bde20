#!/bin/bash
# How often does `iospd compare` call two identical back-to-back runs "within noise"?
# A calibration (the workload with --repeat=10), then 20 pairs of 3-second random-read runs on a
# 256 MiB file in $DIR (default /tmp/iospd-noise), with the release binary. Each pair is compared
# twice: with iospd's default floors and with the floors the calibration measured. Prints each
# pair's read IOPS lines, then per metric how many pairs were within noise, and how many pairs had
# every line within noise. Run nothing else meanwhile: a compile in parallel is a real change of
# the machine, and compare says so. KEEP=1 keeps the JSON files.
set -eu
I=${IOSPD:-$(dirname "$0")/../target/release/iospd}
DIR=${DIR:-/tmp/iospd-noise}
RUN=(-d3 -W1 -D100 -b4K -r -o8 -Sh -L)
mkdir -p "$DIR"
[ -f "$DIR/n.dat" ] || "$I" -c256M -d1 -W0 -Sh "$DIR/n.dat" > /dev/null
"$I" "${RUN[@]}" --repeat=10 -Rjson "$DIR/n.dat" > "$DIR/cal.json" 2>/dev/null
for i in $(seq -w 1 20); do
  "$I" "${RUN[@]}" -Rjson "$DIR/n.dat" > "$DIR/a$i.json" 2>/dev/null
  "$I" "${RUN[@]}" -Rjson "$DIR/n.dat" > "$DIR/b$i.json" 2>/dev/null
  "$I" compare "$DIR/a$i.json" "$DIR/b$i.json" > "$DIR/default$i.txt"
  "$I" compare --noise-from="$DIR/cal.json" "$DIR/a$i.json" "$DIR/b$i.json" > "$DIR/measured$i.txt"
  echo "pair $i default:  $(grep 'read  IOPS' "$DIR/default$i.txt")"
  echo "pair $i measured: $(grep 'read  IOPS' "$DIR/measured$i.txt")"
done
for floors in default measured; do
  echo "== $floors floors: pairs within noise, per line (of 20)"
  cat "$DIR/$floors"*.txt | grep -E '^  (read|total) ' |
    awk -F'|' '{ m = $1; gsub(/ +$/, "", m); n[m]++; if ($NF ~ /within noise/) w[m]++ }
               END { for (m in n) printf "%-30s %2d\n", m, w[m] }' | sort
  all=0
  for f in "$DIR/$floors"*.txt; do
    grep -E '^  (read|total) ' "$f" | grep -qv 'within noise$' || all=$((all + 1))
  done
  echo "every line within noise: $all of 20"
done
grep '^floor:' "$DIR/measured01.txt" || true
[ -n "${KEEP:-}" ] || rm -rf "$DIR"

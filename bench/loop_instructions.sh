#!/bin/bash
# Instructions per I/O of the worker loop, counted by callgrind (repeatable, whatever the machine
# is doing): the worker thread's instructions ÷ the I/Os it completed, on the null engine.
#   bench/loop_instructions.sh <iospd binary> <options…>     (run in a directory holding t.dat)
# e.g. bench/loop_instructions.sh target/profiling/iospd -b4K -o32 -r -L
#   (cargo build --profile profiling: the release build with line tables)
set -eu
bin=$1; shift
rm -f cg.out*
valgrind --tool=callgrind --separate-threads=yes --callgrind-out-file=cg.out $bin -d2 -W0 --engine=null --quiet -Rjson "$@" t.dat > r.json 2>/dev/null
best=0
for f in cg.out-*; do ir=$(grep "^summary:" $f | awk '{print $2}'); [ "$ir" -gt "$best" ] && best=$ir; done
ios=$(python3 -c "import json;print(json.load(open('r.json'))['timespans'][0]['measured']['totals']['total']['ios'])")
python3 -c "print('%.1f instructions per I/O (worker thread %d Ir, %d I/Os)' % ($best/$ios, $best, $ios))"

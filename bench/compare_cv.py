#!/usr/bin/env python3
"""Run-to-run spread of each metric over recorded runs (tests/data/compare/KIND-*.json.zst):
the standard deviation of its logarithm and the farthest-apart pair as a ratio, per direction.
Usage: bench/compare_cv.py quiet busy"""
import json, subprocess, math, sys, glob
def load(f): return json.loads(subprocess.run(['zstd','-dcq',f],capture_output=True).stdout)
def metrics(d):
    lat=d['latency']; p={x['percentile']:x['value_ns'] for x in lat['percentiles']}
    return {'iops':d['ios_per_s'],'mean':lat['mean_ns'],'p50':p[50.0],'p90':p[90.0],'p99':p[99.0],'p99.9':p[99.9],'p99.99':p[99.99],'max':lat['max_ns']}
for kind in sys.argv[1:]:
    runs=[load(f)['timespans'][0]['measured']['totals'] for f in sorted(glob.glob(f'tests/data/compare/{kind}-*.json.zst'))]
    for dirn in ['read','write','total']:
        ms=[metrics(r[dirn]) for r in runs]
        out=[]
        for k in ms[0]:
            logs=[math.log(m[k]) for m in ms]; mu=sum(logs)/len(logs)
            sd=math.sqrt(sum((x-mu)**2 for x in logs)/(len(logs)-1))
            # max pairwise ratio
            mx=max(math.exp(abs(a-b)) for a in logs for b in logs)-1
            out.append(f"{k} sd {sd*100:5.1f}% maxpair {mx*100:6.1f}%")
        print(kind, dirn, ' | '.join(out))

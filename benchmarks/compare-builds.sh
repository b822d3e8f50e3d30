#!/usr/bin/env bash
# Compare the facade's commit path of two builds of commitlane, paired in one session: each round
# runs `./commitlane compare` in one build, then in the other (the order alternates per round), and
# the table gives each cell's median [min-max] of the rounds and the per-round ratio new/base.
#
#   benchmarks/compare-builds.sh BASE_DIR NEW_DIR [ROUNDS] [OUT_DIR]
#
# BASE_DIR and NEW_DIR are clones (or worktrees) of the repository; each builds itself on first
# use. Needs python3 for the table. Default: 8 rounds, about 12 minutes on 2 cores.
set -euo pipefail
base=$(cd "$1" && pwd); new=$(cd "$2" && pwd); rounds=${3:-8}; out=${4:-$(mktemp -d -t commitlane-builds-XXXX)}
mkdir -p "$out"
echo "results in $out; load at start: $(uptime)" >&2
for r in $(seq 1 "$rounds"); do
  if [ $((r % 2)) -eq 1 ]; then order="base new"; else order="new base"; fi
  for which in $order; do
    dir=$base; [ "$which" = new ] && dir=$new
    (cd "$dir" && ./commitlane compare --variants threads,legacy,commit-sync,optimistic --loads 4x64,8x1,1x1 \
        --runs 1 --seconds 2 --warmup 0.5 --out "$out/$which-r$r-load" > "$out/$which-r$r-load.log" 2>&1)
    (cd "$dir" && ./commitlane compare --variants threads,legacy --loads 1x1 --concurrency 1 \
        --runs 1 --seconds 2 --warmup 0.5 --out "$out/$which-r$r-one" > "$out/$which-r$r-one.log" 2>&1)
    echo "round $r: $which done; load $(cut -d' ' -f1-3 /proc/loadavg)" >&2
  done
done
python3 - "$out" <<'PY'
import glob, json, statistics, sys
out = sys.argv[1]

def cells(which, kind):
    res = {}
    for f in glob.glob(f"{out}/{which}-r*-{kind}/compare.json"):
        r = int(f.split(f"{which}-r")[1].split("-")[0])
        for load in json.load(open(f))["loads"]:
            name = load["load"] + (", 1 in flight" if kind == "one" else ", 8 in flight")
            for v in load["variants"]:
                run = v["runs"][0]
                res.setdefault((name, v["label"]), {})[r] = (run["commitsPerSecond"], run["p50Micros"])
    return res

def k(x):
    return f"{x / 1000:.1f}k" if x >= 1000 else f"{x:.0f}"

print("| load | variant | base commits/s | new commits/s | new/base (paired) | base p50 µs | new p50 µs |")
print("|---|---|---|---|---|---|---|")
for kind in ("load", "one"):
    base, new = cells("base", kind), cells("new", kind)
    for key in sorted(set(base) & set(new)):
        rs = sorted(set(base[key]) & set(new[key]))
        b = [base[key][r][0] for r in rs]
        n = [new[key][r][0] for r in rs]
        ratio = [new[key][r][0] / base[key][r][0] for r in rs]
        bp = statistics.median(base[key][r][1] for r in rs)
        np_ = statistics.median(new[key][r][1] for r in rs)
        print(f"| {key[0]} | {key[1]} | {k(statistics.median(b))} [{k(min(b))}-{k(max(b))}] | {k(statistics.median(n))} "
              f"[{k(min(n))}-{k(max(n))}] | {statistics.median(ratio):.2f}x [{min(ratio):.2f}x-{max(ratio):.2f}x] | {bp:.1f} | {np_:.1f} |")
PY

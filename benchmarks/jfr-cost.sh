#!/usr/bin/env bash
# The cost of commitlane's Flight Recorder events, paired in one session: each round runs the same
# bench (8 workers x 1-key commits, 8 in flight each) once per variant, in rotated order, each in
# its own JVM, and the table gives each variant's median [min-max] and per-round ratios.
#
#   benchmarks/jfr-cost.sh NEW_DIR [BASE_DIR] [ROUNDS] [OUT_DIR]
#
# Variants: off (no recording), jfr-default (-XX:StartFlightRecording with the JDK's default
# settings: commitlane's per-commit events stay off, its occasional ones are on), jfr-all (bench
# --jfr: every commitlane event). With BASE_DIR (a clone or worktree of a build without the events)
# also base-off and base-jfr, the same without the events' code. Each dir builds itself on first
# use. Needs python3. Default: 3 rounds, about 4 minutes with BASE_DIR on 2 cores.
set -euo pipefail
new=$(cd "$1" && pwd); base=${2:+$(cd "$2" && pwd)}; rounds=${3:-3}; out=${4:-$(mktemp -d -t commitlane-jfr-cost-XXXX)}
mkdir -p "$out"
bench=(bench --scenario one-db --workers 8 --keys 1 --warmup 2 --seconds 5)
variants=(off jfr-default jfr-all)
[ -n "$base" ] && variants=(base-off off base-jfr jfr-default jfr-all)
echo "results in $out; load at start: $(uptime)" >&2
n=${#variants[@]}
for r in $(seq 1 "$rounds"); do
  for i in $(seq 0 $((n - 1))); do
    v=${variants[$(( (i + r - 1) % n ))]}
    dir=$new; opts=""; extra=()
    case $v in base-*) dir=$base ;; esac
    case $v in
      base-jfr|jfr-default) opts="-XX:StartFlightRecording:settings=default,filename=$out/$v-r$r.jfr" ;;
      jfr-all) extra=(--jfr "$out/$v-r$r.jfr") ;;
    esac
    (cd "$dir" && COMMITLANE_JAVA_OPTS="$opts" ./commitlane "${bench[@]}" "${extra[@]}" 2>/dev/null | tail -1 > "$out/$v-r$r.json")
    echo "round $r: $v done; load $(cut -d' ' -f1-3 /proc/loadavg)" >&2
  done
done
rm -f "$out"/*.jfr
python3 - "$out" "${variants[@]}" <<'PY'
import glob, json, statistics, sys
out, variants = sys.argv[1], sys.argv[2:]
runs = {}
for f in glob.glob(f"{out}/*-r*.json"):
    v, r = f.rsplit("/", 1)[1][:-5].rsplit("-r", 1)
    run = json.load(open(f))["runs"][0]
    runs.setdefault(v, {})[int(r)] = (run["commitsPerSecond"], run["cpuMicrosPerCommit"], run["latencyMicros"]["p50"])

def spread(xs, fmt):
    return f"{fmt(statistics.median(xs))} [{fmt(min(xs))}-{fmt(max(xs))}]"

print("| variant | commits/s | CPU µs/commit | p50 µs |")
print("|---|---|---|---|")
for v in variants:
    xs = list(runs[v].values())
    print(f"| {v} | {spread([x[0] for x in xs], lambda c: f'{c / 1000:.0f}k')} | {spread([x[1] for x in xs], lambda c: f'{c:.1f}')} "
          f"| {spread([x[2] for x in xs], lambda c: f'{c:.0f}')} |")
print()
print("| paired, per round | commits/s ratio | CPU/commit ratio |")
print("|---|---|---|")
for a, b in [("off", "base-off"), ("jfr-default", "base-jfr"), ("jfr-default", "off"), ("jfr-all", "jfr-default")]:
    if a in runs and b in runs:
        rs = sorted(set(runs[a]) & set(runs[b]))
        t = [runs[a][r][0] / runs[b][r][0] for r in rs]
        c = [runs[a][r][1] / runs[b][r][1] for r in rs]
        print(f"| {a} / {b} | {spread(t, lambda x: f'{x:.2f}x')} | {spread(c, lambda x: f'{x:.2f}x')} |")
PY

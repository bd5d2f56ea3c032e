#!/usr/bin/env bash
# Fleet scale: the console against a sandbox (another process, the AFTER build's) with 10,008
# endpoints in five regions (--fleet 2000 and the demo fleet in us-east-1, four --extra-region
# R=2000), for two console builds in the same run: BEFORE (main's) and AFTER (this tree's).
# Per build, in a real terminal (tmux, 160x50, process start included):
#   - ms from start to the first frame with rows
#   - the console's CPU (% of one core) and the sandbox's, over STEADY seconds once the first
#     load is in and nothing changes
#   - control-plane calls per refresh by operation over the same window (the sandbox's admin
#     counts, GET /_sandbox/calls)
#   - resident memory after the first load, half way through and after MINUTES minutes
#   - a weight change (sagedeck weights, another process): seconds for the sandbox to apply it
#     (sent → InService, DescribeEndpoint polled every 50 ms), then seconds from applied to the
#     console's Variants tab showing the new share (tmux capture polled), beside the console's
#     refresh interval: the second figure is the console's, and stays within one interval
# Usage: bash benches/fleet_scale.sh [MINUTES]   (default 3; BEFORE= and AFTER= name the binaries,
# BEFORE_ARGS= the before build's extra options)
set -euo pipefail
cd "$(dirname "$0")/.."
MINUTES=${1:-3}
STEADY=${STEADY:-60}
REFRESH=10 # the console's refresh interval (its default; passed as --refresh)
BEFORE=${BEFORE:-/work/wt/base/target/release/sagedeck}
AFTER=${AFTER:-$PWD/target/release/sagedeck}
REGIONS=us-east-1,eu-west-1,us-west-2,ap-southeast-1,eu-central-1
TICKS=$(getconf CLK_TCK)
HOME_DIR=$(mktemp -d)
SESSION=sdscale$$
cleanup() { tmux kill-session -t "$SESSION" 2>/dev/null || true; kill "${SB_PID:-0}" 2>/dev/null || true; rm -rf "$HOME_DIR"; }
trap cleanup EXIT

start_sandbox() { # sets URL and SB_PID
  local log; log=$(mktemp)
  "$AFTER" sandbox --port 0 --no-traffic --fleet 2000 \
    --extra-region eu-west-1=2000 --extra-region us-west-2=2000 \
    --extra-region ap-southeast-1=2000 --extra-region eu-central-1=2000 >"$log" 2>&1 &
  SB_PID=$!
  for _ in $(seq 1 600); do grep -q listening "$log" 2>/dev/null && break; sleep 0.1; done
  URL=$(grep -m1 listening "$log" | awk '{print $NF}')
}

counts() { curl -s "$URL/_sandbox/calls"; }
# The demo A/B endpoint's DescribeEndpoint answer (unsigned: the sandbox's primary region).
described() {
  curl -s -X POST "$URL/" -H 'X-Amz-Target: SageMaker.DescribeEndpoint' \
    -H 'Content-Type: application/x-amz-json-1.1' -d '{"EndpointName":"mcp-intent-classifier-prod"}'
}
now_ns() { date +%s%N; }
secs() { awk -v n="$1" 'BEGIN { printf "%.1f", n / 1e9 }'; }
# Calls per operation between two count documents ($1 before, $2 after), SageMaker only.
delta() {
  python3 - "$1" "$2" <<'EOF'
import json, sys
a, b = (json.loads(x) for x in sys.argv[1:3])
def flat(d):
    out = {}
    for row in d.get("calls", []):
        if row.get("service") == "sagemaker":
            out[row["operation"]] = out.get(row["operation"], 0) + row["calls"]
    return out
fa, fb = flat(a), flat(b)
print(" ".join(f"{op}={fb[op] - fa.get(op, 0)}" for op in sorted(fb) if fb[op] - fa.get(op, 0)))
EOF
}

console_pid() {
  local p
  for p in $(pgrep -f "sagedeck --endpoint-url $URL"); do
    [ "$(cat "/proc/$p/comm" 2>/dev/null)" = sagedeck ] && { echo "$p"; return; }
  done
}
cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
rss_mb() { awk '/VmRSS/ {printf "%d", $2 / 1024}' "/proc/$1/status"; }
pct() { awk -v c="$1" -v t="$TICKS" -v s="$2" 'BEGIN { printf "%.1f", 100 * (c / t) / s }'; }
screen() { tmux capture-pane -t "$SESSION" -p 2>/dev/null; }

measure() { # $1 label, $2 binary, $3 its extra flags; prints one table row
  local label=$1 bin=$2 extra=${3:-} t0 t1 first pid c0 s0 k0 k1 c1 s1 rss_load rss_mid rss_late cpu sbcpu calls refreshes
  t0=$(date +%s%N)
  tmux new-session -d -s "$SESSION" -x 160 -y 50 \
    "env HOME=$HOME_DIR AWS_ACCESS_KEY_ID=x AWS_SECRET_ACCESS_KEY=x AWS_REGION=us-east-1 $bin --endpoint-url $URL --regions $REGIONS --refresh $REFRESH $extra"
  for _ in $(seq 1 6000); do screen | grep -q "fleet-ep-" && break; sleep 0.005; done
  t1=$(date +%s%N); first=$(( (t1 - t0) / 1000000 ))
  pid=$(console_pid)
  # The first load: until no row is left describing (or 5 minutes).
  for _ in $(seq 1 300); do screen | grep -q "describing" || break; sleep 1; done
  sleep 15
  rss_load=$(rss_mb "$pid")
  k0=$(counts); c0=$(cpu_ticks "$pid"); d0=$(cpu_ticks "$SB_PID"); s0=$(date +%s)
  sleep "$STEADY"
  k1=$(counts); c1=$(cpu_ticks "$pid"); d1=$(cpu_ticks "$SB_PID"); s1=$(date +%s)
  cpu=$(pct $((c1 - c0)) $((s1 - s0))); sbcpu=$(pct $((d1 - d0)) $((s1 - s0)))
  calls=$(delta "$k0" "$k1")
  refreshes=$(( (s1 - s0) / REFRESH ))
  # A weight change on the demo's A/B endpoint (Stable 9, Canary 1 → 1:1; in us-east-1 only),
  # selected with the filter and shown on the Variants tab.
  tmux send-keys -t "$SESSION" / mcp-intent-classifier-prod Enter 2
  sleep 3
  local w0 wa ws deadline
  w0=$(now_ns)
  env HOME=$HOME_DIR AWS_ACCESS_KEY_ID=x AWS_SECRET_ACCESS_KEY=x "$AFTER" weights mcp-intent-classifier-prod \
    --endpoint-url "$URL" --region us-east-1 --set Stable=1 --set Canary=1 --yes >/dev/null 2>"$HOME_DIR/weights.err" \
    || { echo "the weight change failed: $(cat "$HOME_DIR/weights.err")" >&2; }
  deadline=$(( $(date +%s) + 300 ))
  until described | grep -q '"EndpointStatus":"InService"' || [ "$(date +%s)" -ge "$deadline" ]; do sleep 0.05; done
  wa=$(now_ns)
  deadline=$(( $(date +%s) + 120 ))
  until screen | grep -q "50.0%" || [ "$(date +%s)" -ge "$deadline" ]; do sleep 0.05; done
  ws=$(now_ns)
  local applied shown; applied=$(secs $((wa - w0))); shown=$(secs $((ws - wa)))
  # Set the weights back for the next build.
  env HOME=$HOME_DIR AWS_ACCESS_KEY_ID=x AWS_SECRET_ACCESS_KEY=x "$AFTER" weights mcp-intent-classifier-prod \
    --endpoint-url "$URL" --region us-east-1 --set Stable=9 --set Canary=1 --yes >/dev/null 2>&1 || true
  tmux send-keys -t "$SESSION" Escape 1
  local rest=$(( MINUTES * 60 - STEADY - 20 > 0 ? MINUTES * 60 - STEADY - 20 : 0 ))
  sleep $(( rest / 2 ))
  rss_mid=$(rss_mb "$pid")
  sleep $(( rest - rest / 2 ))
  rss_late=$(rss_mb "$pid")
  tmux kill-session -t "$SESSION"
  printf '%-7s %9s %8s %8s %9s %9s %9s %8s %8s %8s  %s\n' "$label" "$first" "$cpu" "$sbcpu" "$rss_load" "$rss_mid" "$rss_late" \
    "$applied" "$shown" "$REFRESH" "$refreshes refreshes: $calls"
}

start_sandbox
printf 'sandbox: 10,008 endpoints over 5 regions; steady window %ss; memory again half way and after %s min\n' "$STEADY" "$MINUTES"
printf '%-7s %9s %8s %8s %9s %9s %9s %8s %8s %8s  %s\n' build "first ms" "cpu %" "sbx %" "rss MB" "rss mid" "rss late" \
  "apply s" "shown s" "every s" "SageMaker calls in the steady window"
# The after build's budget on this sandbox: 100 control-plane calls a second per region (the
# embedded sandbox's default; 10 against AWS). A before build that has the budget too takes
# BEFORE_ARGS="--control-plane-budget 100" (builds older than the budget take none).
measure before "$BEFORE" "${BEFORE_ARGS:-}"
measure after "$AFTER" "--control-plane-budget 100"
echo "(steady window: $STEADY s with nothing changing; calls counted by the sandbox over it)"
echo "(apply s: the sandbox's update, sent to InService; shown s: from applied to the Variants tab; every s: the refresh interval)"

#!/usr/bin/env bash
# Live figures of the console, measured on the real release binary in tmux against a sandbox in
# another process (so the sandbox's own work is not counted):
#   - time from start to the first frame showing data
#   - idle CPU of the console over 30 s with no input (target < 0.5% of a core)
#   - resident memory with 1,000 endpoints and 24 h of metrics (target < 50 MB)
# Usage: bash benches/console_live.sh   (builds the release binary into target/bench first)
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$PWD/target/bench}
cargo build --release --quiet --bin sagedeck
BIN=$CARGO_TARGET_DIR/release/sagedeck
TICKS=$(getconf CLK_TCK)
HOME_DIR=$(mktemp -d)
cleanup() { tmux kill-session -t sdbench 2>/dev/null || true; kill "${SB_PID:-0}" 2>/dev/null || true; rm -rf "$HOME_DIR"; }
trap cleanup EXIT

start_sandbox() { # $@: sandbox flags; sets URL and SB_PID
  local log; log=$(mktemp)
  "$BIN" sandbox --port 0 --no-traffic "$@" >"$log" 2>&1 &
  SB_PID=$!
  for _ in $(seq 1 200); do grep -q listening "$log" 2>/dev/null && break; sleep 0.05; done
  URL=$(head -1 "$log" | awk '{print $NF}')
}

console_pid() { # the console itself, not the shell tmux started it from
  local p
  for p in $(pgrep -f "sagedeck --endpoint-url $URL"); do
    [ "$(cat "/proc/$p/comm" 2>/dev/null)" = sagedeck ] && { echo "$p"; return; }
  done
}

run_console() { # starts the console in tmux; prints ms to the first frame with data
  local t0 t1
  t0=$(date +%s%N)
  tmux new-session -d -s sdbench -x 160 -y 50 \
    "env HOME=$HOME_DIR AWS_ACCESS_KEY_ID=x AWS_SECRET_ACCESS_KEY=x AWS_REGION=us-east-1 $BIN --endpoint-url $URL"
  for _ in $(seq 1 2000); do
    if tmux capture-pane -t sdbench -p 2>/dev/null | grep -q "$1"; then break; fi
    sleep 0.005
  done
  t1=$(date +%s%N)
  echo $(( (t1 - t0) / 1000000 ))
}

cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
rss_kb() { awk '/VmRSS/ {print $2}' "/proc/$1/status"; }

printf '%-44s %12s\n' "measure" "value"
start_sandbox
first=$(run_console mcp-intent-classifier-prod)
printf '%-44s %10s ms\n' "start to first frame with data (demo fleet)" "$first"
PID=$(console_pid)
sleep 5
c0=$(cpu_ticks "$PID"); s0=$(date +%s%N)
sleep 30
c1=$(cpu_ticks "$PID"); s1=$(date +%s%N)
pct=$(awk -v c=$((c1 - c0)) -v t="$TICKS" -v ns=$((s1 - s0)) 'BEGIN { printf "%.2f", 100 * (c / t) / (ns / 1e9) }')
printf '%-44s %10s %%\n' "idle CPU over 30 s (one core = 100%)" "$pct"
printf '%-44s %10s MB\n' "resident memory, demo fleet" "$(( $(rss_kb "$PID") / 1024 ))"
tmux kill-session -t sdbench; kill "$SB_PID"; wait "$SB_PID" 2>/dev/null || true

start_sandbox --empty --fleet 1000
first=$(run_console fleet-ep-)
PID=$(console_pid)
# Let the inventory and a metrics refresh land, open the Latency tab on its 24 h window, then read
# the resident set.
sleep 15
tmux send-keys -t sdbench 4 w w w
sleep 15
printf '%-44s %10s ms\n' "start to first frame with data (1,000 endpoints)" "$first"
printf '%-44s %10s MB\n' "resident memory, 1,000 endpoints + 24 h chart" "$(( $(rss_kb "$PID") / 1024 ))"

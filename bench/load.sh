#!/usr/bin/env bash
# bench/load.sh: builds release, starts catan-server on loopback (SQLite or
# PostgreSQL store, fresh database per run), runs catan-loadgen scenarios and
# optionally the ws-baseline relay with the same room count; one JSON line per run
# under bench/results/<timestamp>/ (git-ignored).
#
# Usage: bench/load.sh [--store sqlite|postgres] [--runs N] [--baseline] [--profile]
#                      [--scenario saturation|latency|idle|soak|...]... (all below)
# Scenarios (defaults; override with the environment variables in brackets):
#   saturation  1000 rooms, think 0,   20 s after 5 s warm-up   [SAT_ROOMS, SAT_DURATION]
#   latency     1000 rooms, think 200, 30 s after 10 s warm-up  [LAT_ROOMS, LAT_DURATION]
#               + checks that the store holds exactly the acknowledged actions
#   idle        10000 rooms created, seated and started, no stand-ins; as many
#               connected as the open-file limit allows; held 30 s            [IDLE_ROOMS, IDLE_DURATION]
#   soak        1000 rooms, think 200, 600 s after 60 s warm-up, RSS every 10 s
#   abuse-clean 1000 rooms, think 200, 180 s after 60 s warm-up, with the server's
#               default per-address limits (each room from its own address)
#                                         [ABUSE_ROOMS, ABUSE_WARMUP, ABUSE_CLEAN_DURATION]
#   abuse       the same plus one misbehaving spectator per room (--misbehave),
#               600 s after 60 s warm-up                      [ABUSE_DURATION]
#   hard-bots   HARD_ROOMS (100) rooms of 4 hard bots playing, and beside them
#               200 rooms of people's pace (think 1000 ms) measured, 60 s after
#               20 s warm-up                        [HARD_ROOMS, HARD_DURATION]
#   hard-base   the same 200 rooms without the hard bots, for comparison
#   cluster-1   one instance in cluster mode on PostgreSQL (--cluster-address),
#               the saturation load                            [SAT_ROOMS, SAT_DURATION]
#   cluster-3   three instances of one cluster, room slots in turn on each
#   cluster-forward  the same, each room's sockets opened at another instance than
#               the owner (every socket forwarded)
#   cluster-latency, cluster-forward-latency  three instances, the latency load
#               (think 200), without and with every socket forwarded
#                                                            [LAT_ROOMS, LAT_DURATION]
#   queue       quick play: QUEUE_RATE (20) people a second for QUEUE_SECS (120) s,
#               ratings drawn around 1000 (sd 300), each joining over the queue's
#               WebSocket for a table of four allowing bots and connecting to its
#               seat; the waits, the tables completed by bots, the rating spread
#               at tables (people still waiting QUEUE_GRACE (90) s after the
#               last arrival count as unseated)   [QUEUE_RATE, QUEUE_SECS, QUEUE_GRACE]
#   queue-3     the same on three instances of one cluster (PostgreSQL), each
#               person at one instance in turn
# --profile records the (first) server's call stacks with `perf record --call-graph
# dwarf` for the measured window but 2 s at each end, of every loadgen scenario, and
# adds the shares of its CPU time by kind of work (bench/profile_buckets.py: parsing,
# redaction and encoding, engine, store, socket work, room task, runtime) to the
# run's line; the whole report is <scenario>-<run>.profile.txt beside it.
# --baseline runs the bare WebSocket relay whose source directory WS_BASELINE_DIR
# names (a cargo project with baseline-server and loadgen binaries; copied to
# /tmp/ws-baseline) for
# the saturation load (and the latency load when that scenario is asked for), default
# and --read-buffer-size 4096 servers.
# SERVER_CPUS and LOADGEN_CPUS (taskset lists, e.g. 0 and 1) pin the servers and the
# load generator to CPUs of their own (default: both share every CPU).
# Other knobs: BIN [build into $CARGO_TARGET_DIR/release], PORT [19500], PG_ADMIN [postgres://postgres@127.0.0.1:5432/postgres],
# OUT [bench/results/<timestamp>].
set -euo pipefail
cd "$(dirname "$0")/.."

STORE=sqlite RUNS=1 BASELINE=0 PROFILE=0 SCENARIOS=()
while [ $# -gt 0 ]; do
  case "$1" in
    --store) STORE=$2; shift 2 ;;
    --runs) RUNS=$2; shift 2 ;;
    --baseline) BASELINE=1; shift ;;
    --profile) PROFILE=1; shift ;;
    --scenario) SCENARIOS+=("$2"); shift 2 ;;
    *) echo "unknown argument $1" >&2; exit 2 ;;
  esac
done
[ ${#SCENARIOS[@]} -gt 0 ] || SCENARIOS=(saturation latency idle)
case "$STORE" in sqlite|postgres) ;; *) echo "--store sqlite|postgres" >&2; exit 2 ;; esac

export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$PWD/target}
PORT=${PORT:-19500}
PG_ADMIN=${PG_ADMIN:-postgres://postgres@127.0.0.1:5432/postgres}
OUT=${OUT:-bench/results/$(date +%Y%m%d-%H%M%S)}
mkdir -p "$OUT"
ulimit -n "$(ulimit -Hn)"
# BIN: a directory that already holds catan-server and catan-loadgen (no build).
if [ -z "${BIN:-}" ]; then
  cargo build --release --quiet -p catan-server -p catan-client
  BIN=$CARGO_TARGET_DIR/release
fi
TMP=$(mktemp -d)
SERVER_PID= SERVER_PIDS=()
cleanup() {
  local pid
  for pid in "${SERVER_PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
  rm -rf "$TMP"
}
trap cleanup EXIT
# Runs a command on the CPUs a list names (taskset), or as it is without one.
on_cpus() { # list command...
  local cpus=$1; shift
  if [ -n "$cpus" ]; then taskset -c "$cpus" "$@"; else "$@"; fi
}

# Starts catan-server on a fresh database; sets SERVER_PID (the first instance's),
# SERVER_PIDS, URLS (one --url per instance) and DB. INSTANCES (1) servers; with
# CLUSTER=1 each is an instance of one cluster (--cluster-address, PostgreSQL),
# instance i on PORT+10*i (admin +1).
# The other scenarios lift the per-address rates (their rooms play at full speed,
# faster than a person); DEFAULT_LIMITS=1 keeps the server's defaults.
DEFAULT_LIMITS=0 INSTANCES=1 CLUSTER=0 SERVER_PIDS=() URLS=()
start_server() {
  local name=$1 rates=(CATAN_LOBBY_RATE_PER_MIN=0 CATAN_WEBSOCKET_RATE_PER_MIN=0)
  [ "$DEFAULT_LIMITS" = 1 ] && rates=()
  if [ "$STORE" = sqlite ] && [ "$CLUSTER" = 0 ]; then
    DB="sqlite://$TMP/$name.db"
  else
    local db="catan_load_${name//-/_}_$$"
    psql -q "$PG_ADMIN" -c "DROP DATABASE IF EXISTS $db" -c "CREATE DATABASE $db"
    DB="${PG_ADMIN%/*}/$db"
  fi
  SERVER_PIDS=() URLS=()
  local i port cluster pin=()
  [ -n "${SERVER_CPUS:-}" ] && pin=(taskset -c "$SERVER_CPUS")
  for i in $(seq 0 $((INSTANCES - 1))); do
    port=$((PORT + 10 * i)) cluster=()
    [ "$CLUSTER" = 1 ] && cluster=(CATAN_CLUSTER_ADDRESS=http://127.0.0.1:$port)
    CATAN_BIND=127.0.0.1:$port CATAN_ADMIN_BIND=127.0.0.1:$((port + 1)) DATABASE_URL=$DB \
      CATAN_MAX_ROOMS=20000 RUST_LOG=${RUST_LOG:-warn} \
      CATAN_MAX_CONNECTIONS=60000 CATAN_MAX_WEBSOCKETS=50000 \
      env "${rates[@]}" "${cluster[@]}" "${pin[@]}" "$BIN/catan-server" 2>>"$OUT/server.log" &
    SERVER_PIDS+=($!) URLS+=(--url "ws://127.0.0.1:$port")
    local ready=0
    for _ in $(seq 100); do
      curl -sf "http://127.0.0.1:$port/readyz" >/dev/null && { ready=1; break; }
      sleep 0.1
    done
    [ "$ready" = 1 ] || { echo "server did not become ready" >&2; exit 1; }
  done
  SERVER_PID=${SERVER_PIDS[0]}
}

stop_server() {
  local pid
  for pid in "${SERVER_PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${SERVER_PIDS[@]}"; do wait "$pid" 2>/dev/null || true; done
  SERVER_PID= SERVER_PIDS=()
}

# Rows in game_actions of the current database.
store_rows() {
  if [[ "$DB" == sqlite://* ]]; then
    sqlite3 "${DB#sqlite://}" "SELECT COUNT(*) FROM game_actions"
  else
    psql -qtA "$DB" -c "SELECT COUNT(*) FROM game_actions"
  fi
}

# Fills HARD_ROOMS rooms with 4 hard bots each and starts them (server running).
hard_rooms() {
  local base="http://127.0.0.1:$PORT" i room host
  for i in $(seq "${HARD_ROOMS:-100}"); do
    read -r room host < <(curl -sf -X POST "$base/api/rooms" -H 'content-type: application/json' \
      -d '{"players":4,"listed":false}' | jq -r '"\(.room_id) \(.host_token)"')
    for _ in 1 2 3 4; do
      curl -sf -X POST "$base/api/rooms/$room/bots" -H "authorization: Bearer $host" \
        -H 'content-type: application/json' -d '{"kind":"hard"}' >/dev/null
    done
    curl -sf -X POST "$base/api/rooms/$room/start" -H "authorization: Bearer $host" \
      -H 'content-type: application/json' -d '{}' >/dev/null
  done
}

run_loadgen() { # scenario run args...
  local scenario=$1 run=$2; shift 2
  start_server "$scenario-$run"
  [ "$scenario" = hard-bots ] && hard_rooms
  local line rc=0 perf_pid= shares=null
  if [ "$PROFILE" = 1 ]; then
    local warmup duration a prev=
    for a in "$@"; do
      case "$prev" in --warmup) warmup=$a ;; --duration) duration=$a ;; esac
      prev=$a
    done
    (sleep $((${warmup:-2} + 2)); perf record -q -F 499 --call-graph dwarf,16384 -p "$SERVER_PID" \
      -o "$OUT/$scenario-$run.perf" -- sleep $((${duration:-10} - 4))) 2>>"$OUT/perf.log" &
    perf_pid=$!
  fi
  line=$(on_cpus "${LOADGEN_CPUS:-}" "$BIN/catan-loadgen" "${URLS[@]}" --server-pid "$SERVER_PID" --json "$@" \
    | tee -a "$OUT/loadgen.log" | tail -n 1) || rc=$?
  if [ -n "$perf_pid" ]; then wait "$perf_pid" || true; fi
  sleep 1
  local rows
  rows=$(store_rows)
  stop_server
  if [ -n "$perf_pid" ]; then
    # Only once the server is stopped: the report takes a minute or more, and a
    # server left running meanwhile has stand-ins play the seats the load generator
    # left (after --stand-in-secs), actions nobody acknowledged.
    perf script -i "$OUT/$scenario-$run.perf" -F comm,tid,period,ip,sym,dso 2>/dev/null \
      | python3 bench/profile_buckets.py >"$OUT/$scenario-$run.profile.txt"
    shares=$(tail -n 1 "$OUT/$scenario-$run.profile.txt")
    rm -f "$OUT/$scenario-$run.perf"
  fi
  echo "$line" | jq -c --arg s "$scenario" --arg st "$STORE" --argjson run "$run" \
    --argjson rows "$rows" --argjson rc "$rc" --arg args "$*" --argjson profile "$shares" \
    '. + {scenario: $s, store: $st, run: $run, store_rows: $rows, exit: $rc, args: $args,
          store_matches_acks: ($rows == .actions_total)}
       + (if $profile == null then {} else {profile: $profile} end)' | tee -a "$OUT/runs.jsonl"
}

# The quick-play scenarios: guests made and given drawn ratings (in the database),
# then brought in at QUEUE_RATE a second.
run_queue() { # scenario run
  local scenario=$1 run=$2 dir line rc=0
  start_server "$scenario-$run"
  dir=$TMP/$scenario-$run
  mkdir -p "$dir"
  "$BIN/catan-loadgen" "${URLS[@]}" --queue-prepare "$dir" --seed "$run" \
    --queue-people $(( ${QUEUE_RATE:-20} * ${QUEUE_SECS:-120} )) >>"$OUT/loadgen.log"
  if [[ "$DB" == sqlite://* ]]; then
    sqlite3 "${DB#sqlite://}" <"$dir/ratings.sql"
  else
    psql -q "$DB" -f "$dir/ratings.sql" >/dev/null
  fi
  line=$(on_cpus "${LOADGEN_CPUS:-}" "$BIN/catan-loadgen" "${URLS[@]}" --queue-run "$dir" --queue-per-sec "${QUEUE_RATE:-20}" \
    --queue-grace-secs "${QUEUE_GRACE:-90}" --json | tee -a "$OUT/loadgen.log" | tail -n 1) || rc=$?
  stop_server
  echo "$line" | jq -c --arg s "$scenario" --arg st "$STORE" --argjson run "$run" --argjson rc "$rc" \
    '. + {scenario: $s, store: $st, run: $run, exit: $rc}' | tee -a "$OUT/runs.jsonl"
}

for run in $(seq "$RUNS"); do
  for sc in "${SCENARIOS[@]}"; do
    case "$sc" in
      saturation) run_loadgen saturation "$run" --rooms "${SAT_ROOMS:-1000}" --think-ms 0 \
                    --duration "${SAT_DURATION:-20}" --warmup 5 ;;
      latency) run_loadgen latency "$run" --rooms "${LAT_ROOMS:-1000}" --think-ms 200 \
                 --duration "${LAT_DURATION:-30}" --warmup 10 ;;
      idle) run_loadgen idle "$run" --idle --rooms "${IDLE_ROOMS:-10000}" \
              --duration "${IDLE_DURATION:-30}" --warmup 60 --setup-concurrency 64 ;;
      soak) run_loadgen soak "$run" --rooms 1000 --think-ms 200 --duration 600 --warmup 60 \
              --sample-secs 10 ;;
      abuse-clean) DEFAULT_LIMITS=1 run_loadgen abuse-clean "$run" --rooms "${ABUSE_ROOMS:-1000}" --think-ms 200 \
                     --duration "${ABUSE_CLEAN_DURATION:-180}" --warmup "${ABUSE_WARMUP:-60}" --sample-secs 10 ;;
      hard-bots|hard-base) run_loadgen "$sc" "$run" --rooms 200 --think-ms 1000 \
                             --duration "${HARD_DURATION:-60}" --warmup 20 ;;
      cluster-1|cluster-3) INSTANCES=${sc#cluster-} CLUSTER=1 run_loadgen "$sc" "$run" \
                             --rooms "${SAT_ROOMS:-1000}" --think-ms 0 --duration "${SAT_DURATION:-20}" --warmup 5 ;;
      cluster-forward) INSTANCES=3 CLUSTER=1 run_loadgen "$sc" "$run" --forward \
                         --rooms "${SAT_ROOMS:-1000}" --think-ms 0 --duration "${SAT_DURATION:-20}" --warmup 5 ;;
      cluster-latency) INSTANCES=3 CLUSTER=1 run_loadgen "$sc" "$run" \
                         --rooms "${LAT_ROOMS:-1000}" --think-ms 200 --duration "${LAT_DURATION:-30}" --warmup 10 ;;
      cluster-forward-latency) INSTANCES=3 CLUSTER=1 run_loadgen "$sc" "$run" --forward \
                         --rooms "${LAT_ROOMS:-1000}" --think-ms 200 --duration "${LAT_DURATION:-30}" --warmup 10 ;;
      queue) run_queue queue "$run" ;;
      queue-3) INSTANCES=3 CLUSTER=1 run_queue queue-3 "$run" ;;
      abuse) DEFAULT_LIMITS=1 run_loadgen abuse "$run" --rooms "${ABUSE_ROOMS:-1000}" --think-ms 200 --misbehave \
               --duration "${ABUSE_DURATION:-600}" --warmup "${ABUSE_WARMUP:-60}" --sample-secs 10 ;;
      *) echo "unknown scenario $sc" >&2; exit 2 ;;
    esac
  done
done

if [ "$BASELINE" = 1 ]; then
  WSB=/tmp/ws-baseline
  if [ ! -d "$WSB" ]; then
    [ -n "${WS_BASELINE_DIR:-}" ] || { echo "--baseline needs WS_BASELINE_DIR" >&2; exit 2; }
    cp -r "$WS_BASELINE_DIR" "$WSB"; chmod -R u+w "$WSB"
  fi
  (cd "$WSB" && CARGO_TARGET_DIR=$WSB/target cargo build --release --quiet)
  # The relay under the saturation load, and under the latency load too when that
  # scenario was asked for.
  loads=("saturation 0 ${SAT_ROOMS:-1000} ${SAT_DURATION:-20} 5")
  [[ " ${SCENARIOS[*]} " == *" latency "* ]] &&
    loads+=("latency 200 ${LAT_ROOMS:-1000} ${LAT_DURATION:-30} 10")
  for run in $(seq "$RUNS"); do
    for load in "${loads[@]}"; do
      read -r lsc think rooms duration warmup <<<"$load"
      for args in "" "--read-buffer-size 4096"; do
        pin=()
        [ -n "${SERVER_CPUS:-}" ] && pin=(taskset -c "$SERVER_CPUS")
        # shellcheck disable=SC2086
        "${pin[@]}" "$WSB/target/release/baseline-server" $((PORT + 2)) $args 2>/dev/null &
        pid=$!
        sleep 0.5
        on_cpus "${LOADGEN_CPUS:-}" "$WSB/target/release/loadgen" --port $((PORT + 2)) --rooms "$rooms" \
          --think-ms "$think" --duration "$duration" --warmup "$warmup" --server-pid "$pid" --json \
          | tail -n 1 | jq -c --arg a "$args" --arg l "$lsc" --argjson run "$run" \
            '. + {scenario: "baseline", load: $l, server_args: $a, run: $run}' | tee -a "$OUT/baseline.jsonl"
        kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true
      done
    done
  done
fi
echo "results in $OUT"

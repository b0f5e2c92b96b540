#!/usr/bin/env bash
# A local Redis Cluster for running Lectern's queue tests and benchmarks against a real cluster:
# six `redis-server` processes with --cluster-enabled yes on ports BASE..BASE+5 (BASE 7000
# unless REDIS_CLUSTER_BASE_PORT is set), no persistence, daemonized, with their files under
# REDIS_CLUSTER_DIR (default /tmp/lectern-redis-cluster).
#
#   scripts/redis-cluster.sh start [--masters 3|1]   prints the seed URL (redis://127.0.0.1:7000) on stdout
#   scripts/redis-cluster.sh stop
#   scripts/redis-cluster.sh status
#
# `start` is idempotent: a cluster already up with the asked number of masters is kept; one with
# another layout (or half started) is stopped and made again, empty.
#
# --masters 3: `redis-cli --cluster create ... --cluster-replicas 1`: three masters (a third of the
#   slots each), each with one replica.
# --masters 1: redis-cli cannot create a cluster of fewer than three masters, so it is made by
#   hand: the first node takes all 16384 slots (CLUSTER ADDSLOTSRANGE), the second becomes its
#   replica, and the other four join as masters without slots (they serve nothing; clients never
#   learn of them). So the one serving master has one replica, as each master has with --masters
#   3, and the same six processes run: between the two layouts only the number of masters the
#   keys are spread over changes.
set -euo pipefail

BASE=${REDIS_CLUSTER_BASE_PORT:-7000}
DIR=${REDIS_CLUSTER_DIR:-/tmp/lectern-redis-cluster}
HOST=127.0.0.1
PORTS=()
for i in 0 1 2 3 4 5; do PORTS+=($((BASE + i))); done

say() { echo "redis-cluster: $*" >&2; }
cli() { local port=$1; shift; redis-cli -h "$HOST" -p "$port" "$@"; }
answers() { [ "$(cli "$1" ping 2>/dev/null)" = "PONG" ]; }
cluster_ok() { cli "$1" cluster info 2>/dev/null | tr -d '\r' | grep -q '^cluster_state:ok$'; }
node_id() { cli "$1" cluster myid | tr -d '\r'; }

# Masters that hold slots, as the first node sees them (0 when it does not answer).
serving_masters() {
  answers "${PORTS[0]}" || { echo 0; return; }
  cli "${PORTS[0]}" cluster nodes 2>/dev/null | awk '$3 ~ /master/ && NF > 8 { n++ } END { print n + 0 }'
}

# Replicas attached to a master, as the first node sees them.
replicas() {
  cli "${PORTS[0]}" cluster nodes 2>/dev/null | awk '$3 ~ /slave/ && $4 != "-" { n++ } END { print n + 0 }'
}

all_ok() {
  for p in "${PORTS[@]}"; do cluster_ok "$p" || return 1; done
}

wait_for() { # seconds, description, command...
  local secs=$1 what=$2; shift 2
  for _ in $(seq 1 $((secs * 10))); do
    if "$@"; then return 0; fi
    sleep 0.1
  done
  say "timed out waiting for $what"
  return 1
}

stop() {
  for p in "${PORTS[@]}"; do
    local pidfile="$DIR/$p/redis.pid"
    if [ -f "$pidfile" ]; then
      local pid; pid=$(cat "$pidfile")
      # Only a redis-server this script started (its pid file, its port): never anyone else's.
      if kill -0 "$pid" 2>/dev/null && grep -q "redis-server" "/proc/$pid/cmdline" 2>/dev/null; then
        kill "$pid" 2>/dev/null || true
        wait_for 10 "redis-server on $p to exit" bash -c "! kill -0 $pid 2>/dev/null" || kill -9 "$pid" 2>/dev/null || true
      fi
    fi
  done
  rm -rf "$DIR"
}

start_servers() {
  for p in "${PORTS[@]}"; do
    mkdir -p "$DIR/$p"
    if answers "$p"; then
      say "port $p is taken by a Redis this script did not start; stop it or set REDIS_CLUSTER_BASE_PORT"
      exit 1
    fi
    redis-server --port "$p" --bind "$HOST" --dir "$DIR/$p" \
      --cluster-enabled yes --cluster-config-file nodes.conf --cluster-node-timeout 5000 \
      --save "" --appendonly no --maxmemory-policy noeviction \
      --daemonize yes --pidfile "$DIR/$p/redis.pid" --logfile "$DIR/$p/redis.log" >/dev/null
  done
  for p in "${PORTS[@]}"; do wait_for 10 "redis-server on $p" answers "$p"; done
}

create_three() {
  local nodes=()
  for p in "${PORTS[@]}"; do nodes+=("$HOST:$p"); done
  redis-cli --cluster create "${nodes[@]}" --cluster-replicas 1 --cluster-yes >"$DIR/create.log" 2>&1 || {
    cat "$DIR/create.log" >&2
    exit 1
  }
}

create_one() {
  local first=${PORTS[0]}
  cli "$first" cluster addslotsrange 0 16383 >/dev/null
  for p in "${PORTS[@]:1}"; do cli "$p" cluster meet "$HOST" "$first" >/dev/null; done
  knows_all() { [ "$(cli "$first" cluster nodes | grep -c .)" -eq 6 ] && [ "$(cli "${PORTS[1]}" cluster nodes | grep -c "$(node_id "$first")")" -eq 1 ]; }
  wait_for 20 "the nodes to meet" knows_all
  local reply; reply=$(cli "${PORTS[1]}" cluster replicate "$(node_id "$first")" | tr -d '\r')
  [ "$reply" = OK ] || { say "CLUSTER REPLICATE on ${PORTS[1]} answered: $reply"; exit 1; }
}

start() {
  local masters=3
  while [ $# -gt 0 ]; do
    case $1 in
      --masters) masters=${2:-}; shift 2 ;;
      --masters=*) masters=${1#*=}; shift ;;
      *) say "unknown option $1"; exit 2 ;;
    esac
  done
  if [ "$masters" != 3 ] && [ "$masters" != 1 ]; then say "--masters must be 3 or 1"; exit 2; fi
  if all_ok 2>/dev/null && [ "$(serving_masters)" -eq "$masters" ]; then
    say "already running with $masters master(s)"
    echo "redis://$HOST:${PORTS[0]}"
    return
  fi
  stop
  start_servers
  if [ "$masters" = 3 ]; then create_three; else create_one; fi
  wait_for 30 "cluster_state:ok on every node" all_ok
  # A replica still syncing would still be counted as a master by a client's first slot map.
  local want_replicas=$masters
  replicas_attached() { [ "$(replicas)" -eq "$want_replicas" ]; }
  wait_for 30 "$want_replicas replica(s) to attach" replicas_attached
  [ "$(serving_masters)" -eq "$masters" ] || { say "expected $masters master(s) with slots, found $(serving_masters)"; exit 1; }
  say "up: $masters master(s) with slots, 6 nodes on ports ${PORTS[0]}-${PORTS[5]}, files in $DIR"
  echo "redis://$HOST:${PORTS[0]}"
}

status() {
  if ! answers "${PORTS[0]}"; then say "not running"; return 1; fi
  cli "${PORTS[0]}" cluster info | tr -d '\r' | grep -E '^cluster_(state|slots_assigned|known_nodes|size):'
  cli "${PORTS[0]}" cluster nodes | awk '{ print $2, $3, ($9 ? $9 : "") }'
}

cmd=${1:-}
shift || true
case $cmd in
  start) start "$@" ;;
  stop) stop; say "stopped" ;;
  status) status ;;
  *) echo "usage: $0 start [--masters 3|1] | stop | status" >&2; exit 2 ;;
esac

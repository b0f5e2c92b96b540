#!/usr/bin/env bash
# A PgBouncer in transaction mode in front of this machine's PostgreSQL, as Heroku-style
# platforms put one in front of theirs: for running the suite and the benchmarks through a pooler.
#
#   scripts/pgbouncer.sh [start] [--port 6432]   starts it (already running: fine), prints its URL
#   scripts/pgbouncer.sh stop [--port 6432]      stops it
#   scripts/pgbouncer.sh status [--port 6432]    exits 0 when it answers
#
# Environment: PGBOUNCER_SERVER (127.0.0.1:5432), PGBOUNCER_POOL_SIZE (server connections per
# database and user; default 5 per core), PGBOUNCER_MAX_CLIENTS (1000), PGBOUNCER_DIR (config,
# pid and log; default /tmp/lectern-pgbouncer-<port>). Any database name works: each goes to
# the database of that name on the server, as user postgres with trust (a test machine).
set -euo pipefail

cmd=start
port=${PGBOUNCER_PORT:-6432}
while [ $# -gt 0 ]; do
  case "$1" in
    start|stop|status) cmd=$1 ;;
    --port) port=${2:?--port needs a number}; shift ;;
    --port=*) port=${1#--port=} ;;
    -h|--help) sed -n '2,/^set /{/^#/p}' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "pgbouncer.sh: unknown argument $1 (start|stop|status [--port N])" >&2; exit 2 ;;
  esac
  shift
done
case "$port" in ''|*[!0-9]*) echo "pgbouncer.sh: --port must be a number (got $port)" >&2; exit 2 ;; esac

server=${PGBOUNCER_SERVER:-127.0.0.1:5432}
server_host=${server%:*}
server_port=${server##*:}
cores=$(nproc 2>/dev/null || echo 2)
# Server connections are what PostgreSQL spends a backend on, and a backend only does work while
# it has a core: a few per core keep the cores busy while others wait on the network or a lock.
pool_size=${PGBOUNCER_POOL_SIZE:-$((cores * 5))}
max_clients=${PGBOUNCER_MAX_CLIENTS:-1000}
dir=${PGBOUNCER_DIR:-/tmp/lectern-pgbouncer-$port}
url="postgres://postgres@127.0.0.1:$port"

answers() { pg_isready -q -h 127.0.0.1 -p "$port" -U postgres -d pgbouncer 2>/dev/null; }
pid_of() { [ -f "$dir/pgbouncer.pid" ] && cat "$dir/pgbouncer.pid" 2>/dev/null; }
running() { local pid; pid=$(pid_of) && [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; }

case "$cmd" in
  status)
    if running && answers; then echo "$url"; exit 0; fi
    exit 1
    ;;
  stop)
    if running; then
      pid=$(pid_of)
      kill -INT "$pid" 2>/dev/null || true
      for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
      kill -0 "$pid" 2>/dev/null && kill -KILL "$pid" 2>/dev/null || true
      echo "pgbouncer on port $port stopped"
    else
      echo "pgbouncer on port $port is not running"
    fi
    exit 0
    ;;
esac

if running && answers; then
  echo "$url"
  exit 0
fi
if answers; then
  echo "pgbouncer.sh: something else answers on port $port (not the PgBouncer of $dir)" >&2
  exit 1
fi
command -v pgbouncer >/dev/null || [ -x /usr/sbin/pgbouncer ] || {
  echo "pgbouncer.sh: pgbouncer is not installed (Debian: apt-get install -y pgbouncer)" >&2
  exit 1
}
bin=$(command -v pgbouncer || echo /usr/sbin/pgbouncer)

mkdir -p "$dir"
# PgBouncer will not run as root: it drops to postgres (-u), which must read the config and
# write the pid and log files.
run_as=()
if [ "$(id -u)" = 0 ]; then
  id postgres >/dev/null 2>&1 || { echo "pgbouncer.sh: PgBouncer will not run as root, and there is no user postgres to run it as" >&2; exit 1; }
  run_as=(-u postgres)
  chown postgres "$dir"
fi

# trust still looks the user up in auth_file; the password there is not checked.
printf '"postgres" ""\n' > "$dir/userlist.txt"
cat > "$dir/pgbouncer.ini" <<EOF
; Written by scripts/pgbouncer.sh: changes here are overwritten on the next start.
[databases]
* = host=$server_host port=$server_port

[pgbouncer]
listen_addr = 127.0.0.1
listen_port = $port
unix_socket_dir =
pidfile = $dir/pgbouncer.pid
logfile = $dir/pgbouncer.log
auth_type = trust
auth_file = $dir/userlist.txt
admin_users = postgres
stats_users = postgres
pool_mode = transaction
; Transaction mode hands a server connection to another client at every transaction's end:
; no reset query between clients (it would run after every transaction).
server_reset_query =
max_client_conn = $max_clients
default_pool_size = $pool_size
reserve_pool_size = $cores
reserve_pool_timeout = 2
; JDBC and some drivers send it; node-postgres does not. The options parameter (-c settings) is not ignored:
; a client that needs a session setting at startup (BullMQ's PostgreSQL backend pins its
; search_path so) must be refused here, loudly, rather than run without it.
ignore_startup_parameters = extra_float_digits
log_connections = 0
log_disconnections = 0
EOF
[ "$(id -u)" = 0 ] && chown postgres "$dir"/pgbouncer.ini "$dir"/userlist.txt
rm -f "$dir/pgbouncer.pid"

"$bin" -d "${run_as[@]}" "$dir/pgbouncer.ini"
for _ in $(seq 1 100); do
  answers && { echo "$url"; exit 0; }
  sleep 0.1
done
echo "pgbouncer.sh: PgBouncer did not answer on port $port; its log ($dir/pgbouncer.log):" >&2
tail -n 20 "$dir/pgbouncer.log" >&2 2>/dev/null || true
exit 1

# shellcheck shell=bash disable=SC2034
# Shared by infra/up, infra/down, infra/status and infra/bootstrap (sourced, not run).
#
# Everything the local services write lives under $INFRA (default: <repo>/.infra, git-ignored;
# override with CRAG_INFRA_DIR). Downloads that are worth sharing between clones (the
# Elasticsearch zip, the compiled ES shim plugin) live under $CACHE (default /var/cache/crag-fleet).

INFRA_SRC="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$INFRA_SRC/.." && pwd)"
INFRA="${CRAG_INFRA_DIR:-$ROOT/.infra}"
CACHE="${CRAG_INFRA_CACHE:-/var/cache/crag-fleet}"
SVC_USER="${CRAG_INFRA_USER:-crag}"   # Postgres and Elasticsearch refuse to run as root
VENV="$ROOT/.venv"

# Fixed ports: workers/settings.py defaults point here. All below 32768, outside Linux's
# ephemeral range (32768-60999), so an outgoing connection can never hold one when a
# service starts (it did once, for Elasticsearch on 59200).
PG_PORT=25432
REDIS_PORT=26379
ES_HTTP_PORT=29200
ES_TRANSPORT_PORT=29300
MODEL_PORT=28080
# The local model served (infra/local_models.py lists them): the same setting the workers read.
MODEL_NAME="${CRAG_LLM_MODEL:-qwen2.5-coder-1.5b-instruct}"

ALL_SERVICES=(postgres redis elasticsearch model)

LOGS="$INFRA/logs"
RUN="$INFRA/run"
SVC_HOME="$INFRA/home"

PG_BIN=/usr/lib/postgresql/15/bin
PG_DATA="$INFRA/pg/data"
PG_SOCK="$INFRA/pg/run"
PG_LOG="$LOGS/postgres.log"

REDIS_DIR="$INFRA/redis"
REDIS_CONF="$REDIS_DIR/redis.conf"
REDIS_LOG="$LOGS/redis.log"
REDIS_PID="$RUN/redis.pid"

ES_VERSION="${CRAG_ES_VERSION:-8.19.3}"   # must match the elasticsearch==8.19.3 Python client
ES_HEAP="${CRAG_ES_HEAP:-512m}"
ES_ARTIFACT="org.elasticsearch.distribution.integ-test-zip:elasticsearch:${ES_VERSION}:zip"
ES_DIR="$INFRA/es"
ES_HOME="$ES_DIR/elasticsearch-$ES_VERSION"
ES_CONF="$ES_DIR/config"
ES_DATA="$ES_DIR/data"
ES_TMP="$ES_DIR/tmp"
ES_LOGDIR="$LOGS/elasticsearch"
ES_LOG="$ES_LOGDIR/crag-fleet.log"        # <cluster.name>.log, written by ES itself
ES_LAUNCH_LOG="$ES_LOGDIR/launcher.log"   # stdout/stderr of bin/elasticsearch -d (JVM errors)
ES_PID="$RUN/elasticsearch.pid"
ES_LAUNCH_RC="$RUN/elasticsearch.launch.rc"     # exit code of bin/elasticsearch -d
ES_LAUNCH_PID="$RUN/elasticsearch.launcher.pid" # while bin/elasticsearch -d is still starting

MODEL_LOG="$LOGS/model.log"
MODEL_PID="$RUN/model.pid"

# Seconds each service gets to become healthy (override: CRAG_TIMEOUT_<SERVICE>).
TIMEOUT_POSTGRES="${CRAG_TIMEOUT_POSTGRES:-60}"
TIMEOUT_REDIS="${CRAG_TIMEOUT_REDIS:-30}"
TIMEOUT_ELASTICSEARCH="${CRAG_TIMEOUT_ELASTICSEARCH:-180}"
TIMEOUT_MODEL="${CRAG_TIMEOUT_MODEL:-90}"

log() { printf '[infra] %s\n' "$*"; }
warn() { printf '[infra] WARNING: %s\n' "$*" >&2; }
die() { printf '[infra] ERROR: %s\n' "$*" >&2; exit 1; }

is_root() { [ "$(id -u)" -eq 0 ]; }

# Canonical service name, or empty for an unknown one.
canon_service() {
  case "$1" in
    postgres | postgresql | pg) echo postgres ;;
    redis) echo redis ;;
    elasticsearch | es) echo elasticsearch ;;
    model | llm | llama) echo model ;;
    *) echo "" ;;
  esac
}

# parse_services ARGS... -> sets the global array SERVICES (default: all, in canonical order).
parse_services() {
  SERVICES=()
  local a c s
  if [ "$#" -eq 0 ]; then
    SERVICES=("${ALL_SERVICES[@]}")
    return
  fi
  for a in "$@"; do
    c="$(canon_service "$a")"
    [ -n "$c" ] || die "unknown service '$a' (known: ${ALL_SERVICES[*]})"
    for s in "${SERVICES[@]}"; do [ "$s" = "$c" ] && continue 2; done
    SERVICES+=("$c")
  done
}

want() { # want SERVICE -> is it in SERVICES?
  local s
  for s in "${SERVICES[@]}"; do [ "$s" = "$1" ] && return 0; done
  return 1
}

# SVC_EXEC: command prefix that runs a command as the unprivileged service user
# (an exec chain: no extra process stays around).
svc_exec_prefix() {
  if is_root; then
    SVC_EXEC=(setpriv --reuid="$SVC_USER" --regid="$SVC_USER" --init-groups
      env HOME="$SVC_HOME" USER="$SVC_USER" LOGNAME="$SVC_USER")
  else
    SVC_EXEC=(env)
  fi
}

as_svc() {
  svc_exec_prefix
  "${SVC_EXEC[@]}" "$@"
}

wait_gone() { # wait_gone PID SECONDS -> 0 once the process has exited
  local pid="$1" n="$2" i
  for ((i = 0; i < n * 4; i++)); do
    kill -0 "$pid" 2>/dev/null || return 0
    sleep 0.25
  done
  return 1
}

pid_of() { [ -s "$1" ] && head -n1 "$1" | tr -dc '0-9'; }

pid_alive() { # pid_alive PIDFILE
  local p
  p="$(pid_of "$1" 2>/dev/null || true)"
  [ -n "$p" ] && kill -0 "$p" 2>/dev/null
}

port_open() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

# --- health checks (quiet; exit status only) -------------------------------------------------
postgres_healthy() { "$PG_BIN/pg_isready" -q -h 127.0.0.1 -p "$PG_PORT" -t 2 2>/dev/null; }
redis_healthy() { [ "$(timeout 2 redis-cli -h 127.0.0.1 -p "$REDIS_PORT" ping 2>/dev/null)" = PONG ]; }
elasticsearch_healthy() {
  curl -fsS -m 5 -o /dev/null \
    "http://127.0.0.1:$ES_HTTP_PORT/_cluster/health?wait_for_status=yellow&timeout=2s" 2>/dev/null
}
model_healthy() { # healthy and serving $MODEL_NAME (not another local model)
  curl -fsS -m 5 -o /dev/null "http://127.0.0.1:$MODEL_PORT/health" 2>/dev/null &&
    curl -fsS -m 5 "http://127.0.0.1:$MODEL_PORT/v1/models" 2>/dev/null | grep -qF "\"$MODEL_NAME\""
}

service_port() {
  case "$1" in
    postgres) echo "$PG_PORT" ;;
    redis) echo "$REDIS_PORT" ;;
    elasticsearch) echo "$ES_HTTP_PORT" ;;
    model) echo "$MODEL_PORT" ;;
  esac
}

service_log() {
  case "$1" in
    postgres) echo "$PG_LOG" ;;
    redis) echo "$REDIS_LOG" ;;
    elasticsearch) echo "$ES_LOG" ;;
    model) echo "$MODEL_LOG" ;;
  esac
}

# The pid of the process we started for SERVICE, if it is alive (empty otherwise).
service_pid() {
  local f
  case "$1" in
    postgres) f="$PG_DATA/postmaster.pid" ;;
    redis) f="$REDIS_PID" ;;
    elasticsearch) f="$ES_PID" ;;
    model) f="$MODEL_PID" ;;
  esac
  if pid_alive "$f" 2>/dev/null; then pid_of "$f"; fi
}

# fail_service SERVICE MESSAGE [EXTRA_LOG...]: name the service and its log(s), show the tail.
fail_service() {
  local svc="$1" msg="$2" logf
  shift 2
  logf="$(service_log "$svc")"
  {
    printf '[infra] ERROR: %s: %s\n' "$svc" "$msg"
    printf '[infra]        log: %s\n' "$logf"
    for extra in "$@"; do printf '[infra]        log: %s\n' "$extra"; done
    for f in "$logf" "$@"; do
      if [ -s "$f" ]; then
        printf '[infra] ---- last lines of %s ----\n' "$f"
        tail -n 15 "$f" | cut -c1-300 | sed 's/^/[infra] | /'
      fi
    done
  } >&2
  exit 1
}

# Serialize infra/up and infra/down runs on this state dir (concurrent test runs call up).
take_lock() {
  mkdir -p "$INFRA"
  exec 9>"$INFRA/.lock"
  if ! flock -n 9; then
    log "another infra/up or infra/down is running on $INFRA; waiting for it"
    flock -w 600 9 || die "timed out waiting for the lock $INFRA/.lock"
  fi
}

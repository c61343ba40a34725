# Shared settings of the loopback cloud scripts (sourced by install.sh, up.sh, down.sh).
# Everything lives in $RESERVE_CLOUD_DIR: the two service venvs (install.sh) and
# state/ (configs, databases, logs, pid list), which up.sh rebuilds on every run.

CLOUD_TOOLS=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
CLOUD_DIR=${RESERVE_CLOUD_DIR:-/var/tmp/reserve-cloud}
STATE=$CLOUD_DIR/state
RUN=$STATE/run
PIDS=$RUN/pids                      # one "name pid" per line; each pid leads its own process group
LOGS=$STATE/logs
VENV_PLACEMENT=$CLOUD_DIR/venv-placement
VENV_NOVA=$CLOUD_DIR/venv-nova
BASE_PYTHON=${RESERVE_CLOUD_PYTHON:-python3}

# Fixed loopback ports. The machine's own RabbitMQ (5672) and MariaDB (3306) are never touched.
RABBIT_PORT=5673
RABBIT_DIST_PORT=25673
RABBIT_NODE=reserve-cloud@localhost
MYSQL_PORT=3307
PLACEMENT_PORT=8778
NOVA_PORT=8774
GLANCE_PORT=9292
NEUTRON_PORT=9696
KEYSTONE_PORT=5001
ALL_PORTS="$RABBIT_PORT $RABBIT_DIST_PORT $MYSQL_PORT $PLACEMENT_PORT $NOVA_PORT $GLANCE_PORT $NEUTRON_PORT $KEYSTONE_PORT"

COMPUTE_HOSTS="host1 host2"

# True if something accepts TCP connections on 127.0.0.1:$1.
port_open() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

# Wall clock in milliseconds (bash 5: EPOCHREALTIME).
now_ms() { local t=${EPOCHREALTIME/./}; echo $((t / 1000)); }

# take_lock: serialise install.sh, up.sh and down.sh (and
# tests/integration/cloud_lifecycle.py, which holds the same lock and sets
# RESERVE_CLOUD_LOCKED=1 for the scripts it runs).
take_lock() {
  [ "${RESERVE_CLOUD_LOCKED:-}" = 1 ] && return 0
  mkdir -p "$CLOUD_DIR"
  exec 9>>"$CLOUD_DIR/.lock"
  if ! flock -n 9; then
    echo "reserve-cloud: waiting for another install/up/down to finish ($CLOUD_DIR/.lock)" >&2
    flock -w 900 9 || { echo "reserve-cloud: lock still busy after 900 s" >&2; exit 1; }
  fi
  export RESERVE_CLOUD_LOCKED=1
}

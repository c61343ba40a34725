#!/bin/bash
# Bring up a real OpenStack (placement + nova, no keystone) on loopback, from scratch:
#
#   RabbitMQ  127.0.0.1:5673  private node reserve-cloud@localhost (state under state/rabbit)
#   MariaDB   127.0.0.1:3307  private server (nova_api, nova_cell0, nova; user nova/nova)
#   placement 127.0.0.1:8778  gunicorn, SQLite, auth_strategy=noauth2
#   stubs     127.0.0.1:9292 glance, :9696 neutron, :5001 keystone (stubs.py)
#   nova-api  127.0.0.1:8774  gunicorn, paste pipeline without authtoken
#   nova-conductor, nova-scheduler, nova-compute host1 and host2 (fake virt driver)
#
# Any previous run is torn down first (down.sh), then state/ is wiped and rebuilt.
# Every process started here leads its own process group and is listed in
# state/run/pids; down.sh stops exactly those. Needs install.sh to have run.
# Environment: RESERVE_CLOUD_DIR (default /var/tmp/reserve-cloud),
#              RESERVE_CLOUD_DEBUG=1 for debug logs in state/logs.
set -euo pipefail
set +m
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"
take_lock

DEBUG=False; [ "${RESERVE_CLOUD_DEBUG:-0}" = 1 ] && DEBUG=True
ETC=$STATE/etc
SETUP_LOG=$STATE/logs/setup.log

T0=$(now_ms); L=$T0
STEP_PIDS=()   # foreground helper jobs (run_parallel), killed if we fail
fmt() { printf '%d.%02d' $(($1 / 1000)) $(($1 % 1000 / 10)); }
lap() { local t; t=$(now_ms); printf '  %-36s %6ss  (total %6ss)\n' "$1" "$(fmt $((t - L)))" "$(fmt $((t - T0)))"; L=$t; }
die() {
  # let the placement job finish, so that whatever it started is in the pid list for down.sh
  [ -z "${PLACEMENT_JOB:-}" ] || wait "$PLACEMENT_JOB" 2>/dev/null || true
  [ ${#STEP_PIDS[@]} = 0 ] || kill "${STEP_PIDS[@]}" 2>/dev/null || true
  echo "up.sh: FAILED: $1" >&2
  [ -n "${2:-}" ] && [ -f "$2" ] && { echo "--- last lines of $2:" >&2; tail -n 25 "$2" >&2; }
  echo "up.sh: logs in $LOGS; run $CLOUD_TOOLS/down.sh to stop what was started" >&2
  exit 1
}

# start NAME CMD...: run CMD detached in a new session (pid = process group id), output to logs/NAME.out
start() {
  local name=$1; shift
  setsid "$@" >"$LOGS/$name.out" 2>&1 </dev/null 9>&- &
  echo "$name $!" >>"$PIDS"
}
# run_step NAME CMD...: run CMD in the foreground, output to setup.log, stop on failure
run_step() {
  local name=$1; shift
  echo "### $name: $*" >>"$SETUP_LOG"
  "$@" >>"$SETUP_LOG" 2>&1 || die "$name" "$SETUP_LOG"
  lap "$name"
}
# run_parallel TITLE NAME1 CMD1... -- NAME2 CMD2... : run the commands side by side, each
# with its output in logs/setup-NAME.log; stop on the first failure
run_parallel() {
  local title=$1; shift
  local names=() pids=() cmd=() i
  while [ $# -gt 0 ]; do
    local name=$1; shift; cmd=()
    while [ $# -gt 0 ] && [ "$1" != "--" ]; do cmd+=("$1"); shift; done
    [ $# -gt 0 ] && shift
    "${cmd[@]}" >"$LOGS/setup-$name.log" 2>&1 &
    names+=("$name"); pids+=($!); STEP_PIDS+=($!)
  done
  for i in "${!pids[@]}"; do
    wait "${pids[$i]}" || die "${names[$i]}" "$LOGS/setup-${names[$i]}.log"
  done
  STEP_PIDS=()
  lap "$title"
}
# wait_for DESCRIPTION SECONDS CMD...: poll CMD every 0.1 s
wait_for() {
  local what=$1 secs=$2; shift 2
  local i
  for ((i = 0; i < secs * 10; i++)); do "$@" && return 0; sleep 0.1; done
  return 1
}
http_ok() { [ "$(curl -s -m 2 -o /dev/null -w '%{http_code}' "$1")" = 200 ]; }

for v in "$VENV_PLACEMENT" "$VENV_NOVA"; do
  [ -f "$v/.reserve-cloud-stamp" ] || die "$v is missing: run $CLOUD_TOOLS/install.sh first"
done

echo "reserve-cloud: bringing up placement + nova in $STATE"
# 0. leftovers of a previous run, then a clean state directory
"$CLOUD_TOOLS/down.sh" -q
busy=""
for p in $ALL_PORTS; do port_open "$p" && busy="$busy $p"; done
if [ -n "$busy" ]; then
  ss -ltnpH 2>/dev/null | grep -E ":($(echo $busy | tr ' ' '|'))\b" >&2 || true
  die "ports in use by processes this script did not start:$busy"
fi
rm -rf "$STATE"
mkdir -p "$RUN" "$LOGS" "$ETC/nova" "$STATE/rabbit/mnesia" "$STATE/rabbit/log" "$STATE/mysql" \
         "$STATE/placement" "$STATE/nova/controller" "$STATE/nova/lock"
: >"$PIDS"

render() { sed -e "s#@STATE@#$STATE#g" -e "s#@DEBUG@#$DEBUG#g" -e "s#@HOST@#${3:-}#g" "$1" >"$2"; }
render "$CLOUD_TOOLS/etc/placement.conf" "$ETC/placement.conf"
render "$CLOUD_TOOLS/etc/my.cnf" "$ETC/my.cnf"
render "$CLOUD_TOOLS/etc/nova.conf" "$ETC/nova/nova.conf"
render "$CLOUD_TOOLS/etc/nova-db.conf" "$ETC/nova/nova-db.conf"
render "$CLOUD_TOOLS/etc/nova-api.conf" "$ETC/nova/nova-api.conf"
for h in $COMPUTE_HOSTS; do
  render "$CLOUD_TOOLS/etc/compute.conf" "$ETC/nova/compute-$h.conf" "$h"
  mkdir -p "$STATE/nova/$h"
done
# nova 34 has no noauth2: use its own paste file minus authtoken. nova's keystonecontext
# middleware then builds the request context from X-User-Id / X-Project-Id / X-Roles.
sed -e 's/ authtoken / /' "$VENV_NOVA/etc/nova/api-paste.ini" >"$ETC/nova/api-paste.ini"
! grep -q '^keystone *=.*authtoken' "$ETC/nova/api-paste.ini" || die "could not drop authtoken from api-paste.ini"
lap "teardown + configs"

# 1. RabbitMQ: a private node, run as root with its own HOME (erlang cookie), mnesia and
#    an empty plugin list; the machine's node (rabbit@..., 5672) is not affected.
echo '[].' >"$STATE/rabbit/enabled_plugins"
start rabbitmq env HOME="$STATE/rabbit" \
  RABBITMQ_NODENAME="$RABBIT_NODE" RABBITMQ_NODE_IP_ADDRESS=127.0.0.1 RABBITMQ_NODE_PORT=$RABBIT_PORT \
  RABBITMQ_DIST_PORT=$RABBIT_DIST_PORT ERL_EPMD_ADDRESS=127.0.0.1 \
  RABBITMQ_MNESIA_BASE="$STATE/rabbit/mnesia" RABBITMQ_LOG_BASE="$STATE/rabbit/log" \
  RABBITMQ_CONFIG_FILE="$STATE/rabbit/rabbitmq" RABBITMQ_ADVANCED_CONFIG_FILE="$STATE/rabbit/advanced.config" \
  RABBITMQ_CONF_ENV_FILE="$STATE/rabbit/rabbitmq-env.conf" \
  RABBITMQ_ENABLED_PLUGINS_FILE="$STATE/rabbit/enabled_plugins" RABBITMQ_PID_FILE="$STATE/rabbit/rabbit.pid" \
  RABBITMQ_SERVER_ADDITIONAL_ERL_ARGS="-kernel inet_dist_use_interface {127,0,0,1}" \
  /usr/lib/rabbitmq/bin/rabbitmq-server

# 2. placement: schema, then gunicorn (in the background, while MariaDB and nova get ready)
(
  "$VENV_PLACEMENT/bin/placement-manage" --config-file "$ETC/placement.conf" db sync \
    >"$LOGS/placement-db-sync.out" 2>&1 || exit 1
  start placement env OS_PLACEMENT_CONFIG_DIR="$ETC" \
    "$VENV_PLACEMENT/bin/gunicorn" --bind 127.0.0.1:$PLACEMENT_PORT --workers 1 --timeout 120 --no-control-socket \
    --access-logfile "$LOGS/placement-access.log" placement.wsgi.api:application
) &
PLACEMENT_JOB=$!

# 3. stubs for glance, neutron and keystone's project check
start stubs "$VENV_NOVA/bin/python" "$CLOUD_TOOLS/stubs.py"

# 4. MariaDB: fresh data directory, nova's databases and user
MY=(mariadb --defaults-file="$ETC/my.cnf")
run_step "mariadb install-db" mariadb-install-db --defaults-file="$ETC/my.cnf" \
  --auth-root-authentication-method=normal --skip-test-db
start mariadb mariadbd --defaults-file="$ETC/my.cnf"
wait_for mariadb 60 "${MY[@]}" -e 'SELECT 1' >/dev/null 2>&1 || die "mariadb did not start" "$LOGS/mariadb.log"
run_step "mariadb up + nova databases" "${MY[@]}" -e "
  CREATE DATABASE nova_api; CREATE DATABASE nova_cell0; CREATE DATABASE nova;
  CREATE USER 'nova'@'127.0.0.1' IDENTIFIED BY 'nova';
  GRANT ALL ON nova_api.* TO 'nova'@'127.0.0.1'; GRANT ALL ON nova_cell0.* TO 'nova'@'127.0.0.1';
  GRANT ALL ON nova.* TO 'nova'@'127.0.0.1';"

# 5. nova schemas: the API, cell0 and cell1 databases migrated side by side, then the
#    cell mappings (cell0 -> nova_cell0, cell1 -> [database] + RabbitMQ), also side by side
CELL0_DB="mysql+pymysql://nova:nova@127.0.0.1:$MYSQL_PORT/nova_cell0?charset=utf8"
printf '# cell0 schema sync only (up.sh)\n[database]\nconnection = %s\n' "$CELL0_DB" >"$ETC/nova/nova-cell0.conf"
NOVA_DB_CONF=(--config-file "$ETC/nova/nova.conf" --config-file "$ETC/nova/nova-db.conf")
NM=("$VENV_NOVA/bin/nova-manage" "${NOVA_DB_CONF[@]}")
run_parallel "nova-manage: api_db, cell0, cell1 schemas" \
  "api_db-sync" "${NM[@]}" api_db sync -- \
  "cell1-db-sync" "${NM[@]}" db sync --local_cell -- \
  "cell0-db-sync" "${NM[@]}" --config-file "$ETC/nova/nova-cell0.conf" db sync --local_cell
run_parallel "nova-manage: map_cell0, create_cell" \
  "map_cell0" "${NM[@]}" cell_v2 map_cell0 --database_connection "$CELL0_DB" -- \
  "create_cell" "${NM[@]}" cell_v2 create_cell --name cell1

# 6. nova control services once RabbitMQ listens
wait_for rabbitmq 90 port_open $RABBIT_PORT || die "rabbitmq did not start" "$LOGS/rabbitmq.out"
lap "rabbitmq up"
start nova-conductor "$VENV_NOVA/bin/nova-conductor" "${NOVA_DB_CONF[@]}"
start nova-scheduler "$VENV_NOVA/bin/nova-scheduler" "${NOVA_DB_CONF[@]}"
# nova's WSGI app reads OS_NOVA_CONFIG_FILES from OS_NOVA_CONFIG_DIR; the first file is the paste file
start nova-api env OS_NOVA_CONFIG_DIR="$ETC/nova" OS_NOVA_CONFIG_FILES="api-paste.ini;nova.conf;nova-db.conf;nova-api.conf" \
  PYTHONPATH="$CLOUD_TOOLS" \
  "$VENV_NOVA/bin/gunicorn" --bind 127.0.0.1:$NOVA_PORT --workers 1 --threads 4 --timeout 120 --no-control-socket \
  --access-logfile "$LOGS/nova-api-access.log" nova_api_wsgi:application
wait $PLACEMENT_JOB || die "placement db sync" "$LOGS/placement-db-sync.out"
wait_for placement 60 http_ok http://127.0.0.1:$PLACEMENT_PORT/ || die "placement did not answer" "$LOGS/placement.out"
lap "placement up"
wait_for nova-api 120 http_ok http://127.0.0.1:$NOVA_PORT/v2.1/ || die "nova-api did not answer" "$LOGS/nova-api.out"
lap "nova-api up"

# poll WHAT TIMEOUT [HOST...]: wait, in the nova venv's python, until nova/placement show WHAT
poll() {
  "$VENV_NOVA/bin/python" - "$@" <<'PY'
import json, sys, time, urllib.request
what, timeout = sys.argv[1], float(sys.argv[2])
NOVA = {"X-User-Id": "admin", "X-Project-Id": "admin", "X-Roles": "admin,member,reader",
        "OpenStack-API-Version": "compute 2.53"}
def get(url, headers):
    with urllib.request.urlopen(urllib.request.Request(url, headers=headers), timeout=5) as r:
        return json.load(r)
def services(binary):
    return [s for s in get("http://127.0.0.1:8774/v2.1/os-services?binary=" + binary, NOVA)["services"]
            if s["state"] == "up"]
def check():
    if what == "control":  # conductor and scheduler report up
        return services("nova-conductor") and services("nova-scheduler")
    if what == "computes":  # both computes created their resource providers
        rps = get("http://127.0.0.1:8778/resource_providers",
                  {"X-Auth-Token": "admin"})["resource_providers"]
        return set(sys.argv[3:]) <= {rp["name"] for rp in rps}
    if what == "hypervisors":  # nova lists both hypervisors, up
        hv = get("http://127.0.0.1:8774/v2.1/os-hypervisors/detail", NOVA)["hypervisors"]
        return set(sys.argv[3:]) <= {h["hypervisor_hostname"] for h in hv if h["state"] == "up"}
deadline, last = time.time() + timeout, None
while True:
    try:
        if check():
            sys.exit(0)
    except Exception as exc:
        last = exc
    if time.time() > deadline:
        sys.exit("timed out waiting for %s (last error: %r)" % (what, last))
    time.sleep(0.2)
PY
}

# 7. computes last: with the conductor already consuming they register at once
poll control 90 >>"$SETUP_LOG" 2>&1 || die "nova-conductor/nova-scheduler not up" "$LOGS/nova-conductor.log"
lap "conductor + scheduler up"
for h in $COMPUTE_HOSTS; do
  start "nova-compute-$h" "$VENV_NOVA/bin/nova-compute" --config-file "$ETC/nova/nova.conf" \
    --config-file "$ETC/nova/compute-$h.conf"
done
poll computes 120 $COMPUTE_HOSTS >>"$SETUP_LOG" 2>&1 || die "computes did not register in placement" "$LOGS/nova-compute-host1.log"
lap "computes registered in placement"
run_step "nova-manage cell_v2 discover_hosts" "${NM[@]}" cell_v2 discover_hosts
poll hypervisors 60 $COMPUTE_HOSTS >>"$SETUP_LOG" 2>&1 || die "hypervisors not listed by nova" "$SETUP_LOG"
lap "hypervisors listed"

cat >"$STATE/endpoints.json" <<EOF
{"placement": "http://127.0.0.1:$PLACEMENT_PORT", "compute": "http://127.0.0.1:$NOVA_PORT/v2.1",
 "glance": "http://127.0.0.1:$GLANCE_PORT", "neutron": "http://127.0.0.1:$NEUTRON_PORT",
 "keystone": "http://127.0.0.1:$KEYSTONE_PORT/v3", "rabbit": "rabbit://guest:guest@127.0.0.1:$RABBIT_PORT/",
 "compute_hosts": [$(printf '"%s",' $COMPUTE_HOSTS | sed 's/,$//')], "state_dir": "$STATE"}
EOF
echo "reserve-cloud: up in $(fmt $(($(now_ms) - T0))) s  (placement :$PLACEMENT_PORT, nova :$NOVA_PORT, computes: $COMPUTE_HOSTS)"

#!/bin/bash
# Create the service venvs of the loopback cloud in $RESERVE_CLOUD_DIR
# (default /var/tmp/reserve-cloud): venv-placement and venv-nova, kept apart from
# reserve's own environment because nova pins differ. Idempotent: a venv whose stamp
# matches the wanted packages is left as it is, so a second run takes about a second.
# First run: about a minute and ~550 MB. RabbitMQ and MariaDB server binaries come
# from Debian (apt-get install rabbitmq-server mariadb-server) and are installed here
# if missing.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"
take_lock

PLACEMENT_PKGS="openstack-placement==16.0.0 gunicorn==27.0.1 PyMySQL==1.2.4"
NOVA_PKGS="nova==34.0.0 python-novaclient==18.13.1 gunicorn==27.0.1 PyMySQL==1.2.4"
CONSTRAINTS=$CLOUD_TOOLS/constraints.txt

T0=$(now_ms)
mkdir -p "$CLOUD_DIR"

need_apt=""
command -v mariadbd >/dev/null || [ -x /usr/sbin/mariadbd ] || need_apt="$need_apt mariadb-server"
[ -x /usr/lib/rabbitmq/bin/rabbitmq-server ] || need_apt="$need_apt rabbitmq-server"
if [ -n "$need_apt" ]; then
  echo "installing from Debian:$need_apt"
  # The packages' own services are not wanted: up.sh runs private instances.
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q $need_apt >/dev/null
fi

# Exit 0 if every "name==version" in $2 is installed in the venv $1.
has_pkgs() {
  "$1/bin/python" - $2 <<'PY' 2>/dev/null
import sys
from importlib.metadata import version
sys.exit(any(version(n) != v for n, v in (a.split("==") for a in sys.argv[1:])))
PY
}

# make_venv DIR "PACKAGES"
make_venv() {
  local dir=$1 pkgs=$2 want have=""
  want=$( (echo "$pkgs"; cat "$CONSTRAINTS"; "$BASE_PYTHON" -c 'import sys; print(sys.version)') | sha256sum | cut -c1-16)
  [ -f "$dir/.reserve-cloud-stamp" ] && have=$(cat "$dir/.reserve-cloud-stamp")
  if [ "$have" = "$want" ] && has_pkgs "$dir" "$pkgs"; then
    echo "$(basename "$dir"): up to date"
    return 0
  fi
  local t=$(now_ms)
  rm -rf "$dir"
  "$BASE_PYTHON" -m venv "$dir"
  # pip warns about every package missing from the machine's local indexes: hide that noise.
  "$dir/bin/pip" install -q --disable-pip-version-check -c "$CONSTRAINTS" $pkgs 2>&1 \
    | grep -v 'is ignored: it is neither a file nor a directory' || true
  has_pkgs "$dir" "$pkgs" || { echo "$(basename "$dir"): packages missing after pip install" >&2; return 1; }
  echo "$want" > "$dir/.reserve-cloud-stamp"
  echo "$(basename "$dir"): installed in $(( ($(now_ms) - t) / 1000 )) s"
}

# The two venvs are independent: build them side by side.
make_venv "$VENV_PLACEMENT" "$PLACEMENT_PKGS" &
P1=$!
make_venv "$VENV_NOVA" "$NOVA_PKGS" &
P2=$!
rc=0; wait $P1 || rc=1; wait $P2 || rc=1
[ $rc = 0 ] || { echo "install.sh: a venv failed to build" >&2; exit 1; }
echo "install.sh: done in $(( ($(now_ms) - T0) / 1000 )) s ($CLOUD_DIR)"

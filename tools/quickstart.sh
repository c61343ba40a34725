#!/bin/bash
# Bring reserve up on its embedded defaults: the four daemons in one
# process, SQLite under ./state, the in-memory message bus, no auth, two
# libvirt test:/// GPU hosts. Beside it, unless --no-cloud is given, a
# real placement and nova on loopback (tools/cloud/: two fake computes
# with two vGPUs each and a GPU flavor g1.vgpu) for flavor bookings to
# fence capacity in. Other arguments go to reserve-all-in-one.
#
# One line per stage; what pip and the cloud print goes to
# state/logs/quickstart-*.log. reserve's venv and the cloud's are built
# side by side, and the cloud starts as soon as its venvs are there.
set -euo pipefail
cd "$(dirname "$0")/.."
cloud=1
args=()
for arg in "$@"; do
    if [ "$arg" = --no-cloud ]; then cloud=0; else args+=("$arg"); fi
done
LOGS=state/logs
mkdir -p "$LOGS"
T0=$SECONDS
stage() { printf '[%3ds] %s\n' $((SECONDS - T0)) "$*"; }
failed() {  # failed LOG WHAT
    echo "quickstart: $2 failed; the end of $1:" >&2
    tail -n 20 "$1" >&2
}

if [ $cloud = 1 ]; then
    stage "Installing reserve (.venv) and the loopback cloud" \
          "(${RESERVE_CLOUD_DIR:-/var/tmp/reserve-cloud}) side by side;" \
          "the first time takes 1 to 4 minutes (pip's cache) and 1 GB"
    # The cloud comes up as soon as its venvs are built, while reserve's
    # pip may still run.
    (tools/cloud/install.sh && { (exec 3<>/dev/tcp/127.0.0.1/8774) \
        2>/dev/null || tools/cloud/up.sh; }) >"$LOGS/quickstart-cloud.log" \
        2>&1 &
    cloud_job=$!
else
    stage "Installing reserve (.venv); the first time takes about a minute"
fi
tools/install.sh >"$LOGS/quickstart-install.log" 2>&1 || {
    failed "$LOGS/quickstart-install.log" "installing reserve"; exit 1; }
stage "reserve installed"

if [ $cloud = 1 ]; then
    if ! wait "$cloud_job"; then
        failed "$LOGS/quickstart-cloud.log" "the loopback cloud"
        echo "quickstart: going on without a cloud; flavor bookings will" \
             "end in ERROR (device reservations still work)" >&2
    elif .venv/bin/python tools/cloud/quickstart_cloud.py \
            >>"$LOGS/quickstart-cloud.log" 2>&1; then
        stage "Loopback cloud up: nova http://127.0.0.1:8774," \
              "placement http://127.0.0.1:8778 (host1 and host2, 2 vGPUs" \
              "each, nova flavor g1.vgpu)"
        args=(--config-file etc/reserve/loopback-cloud.conf "${args[@]}")
    else
        failed "$LOGS/quickstart-cloud.log" "the loopback cloud"
        echo "quickstart: going on without a cloud; flavor bookings will" \
             "end in ERROR (device reservations still work)" >&2
    fi
fi
disk=$(du -sh .venv 2>/dev/null | cut -f1)
[ $cloud = 1 ] && disk="$disk in .venv, $(du -sh "${RESERVE_CLOUD_DIR:-/var/tmp/reserve-cloud}" 2>/dev/null | cut -f1) for the cloud" || disk="$disk in .venv"
stage "Starting reserve-all-in-one ($disk on disk)"
exec .venv/bin/reserve-all-in-one "${args[@]}"

#!/bin/bash
# Bring reserve up on its embedded defaults: the four daemons in one
# process, SQLite under ./state, the in-memory message bus, no auth, two
# libvirt test:/// GPU hosts. Beside it, unless --no-cloud is given, a
# real placement and nova on loopback (tools/cloud/: two fake computes
# with two vGPUs each and a GPU flavor g1.vgpu) for flavor bookings to
# fence capacity in. Other arguments go to reserve-all-in-one.
set -euo pipefail
cd "$(dirname "$0")/.."
cloud=1
args=()
for arg in "$@"; do
    if [ "$arg" = --no-cloud ]; then cloud=0; else args+=("$arg"); fi
done
tools/install.sh
if [ $cloud = 1 ]; then
    if tools/cloud/install.sh && .venv/bin/python tools/cloud/quickstart_cloud.py; then
        args=(--config-file etc/reserve/loopback-cloud.conf "${args[@]}")
    else
        echo "quickstart: going on without a cloud; flavor bookings will" \
             "end in ERROR (GPU unit reservations still work)" >&2
    fi
fi
exec .venv/bin/reserve-all-in-one "${args[@]}"

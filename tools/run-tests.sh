#!/bin/bash
# Run every test of reserve: unit, functional, browser (the calendar page
# in headless Chromium) and integration (which brings up placement and
# nova on loopback, see tools/cloud/).
#   tools/run-tests.sh                 everything, then a check that the
#                                      loopback cloud (if running) holds
#                                      nothing the tests left
#   tools/run-tests.sh tests/unit      a part (any pytest arguments)
set -euo pipefail
cd "$(dirname "$0")/.."
tools/install.sh --test
tools/services.sh
export RESERVE_TEST_REQUIRE_BACKENDS=1
if [ $# -gt 0 ]; then
    exec .venv/bin/python -m pytest -p no:cacheprovider -q "$@"
fi
# The check for dead and duplicated code (tools/check-code.sh), the
# service, then the CLI plugin (its own distribution and settings),
# then the cloud's hygiene (tools/cloud/check_clean.py: no reservation
# flavor, aggregate, reservation class or inventory, or fence left; it
# passes when the cloud is not running). The first failure sets the
# exit status; every step runs.
# The cloud is kept up until the check has looked at it, then stopped
# again if this run started it.
cloud_was_up=0
(exec 3<>/dev/tcp/127.0.0.1/8774) 2>/dev/null && cloud_was_up=1
export RESERVE_CLOUD_KEEP=1
# What the cloud holds already (a quick start beside the tests) is not
# the tests' to clean.
before=$(mktemp)
trap 'rm -f "$before"' EXIT
.venv/bin/python tools/cloud/check_clean.py --save "$before" >/dev/null || true
status=0
tools/check-code.sh || status=$?
# The integration and browser tests run one after the other (they share
# the cloud) and mostly wait on the cloud's and the daemons' loops; the
# unit and functional tests (on both cores, each with its own databases)
# and the CLI plugin's tests run beside them, niced, on the CPU that
# leaves. Each tier ends with its slowest tests, to see where the time
# goes.
unit_log=$(mktemp)
client_log=$(mktemp)
trap 'rm -f "$before" "$unit_log" "$client_log"' EXIT
nice -n 10 .venv/bin/python -m pytest -p no:cacheprovider -q -n 2 \
    --durations=15 tests/unit tests/functional >"$unit_log" 2>&1 &
unit_pid=$!
(cd client && exec nice -n 10 ../.venv/bin/python -m pytest \
    -p no:cacheprovider -q reserveclient/tests) >"$client_log" 2>&1 &
client_pid=$!
echo "== the browser and integration tests =="
.venv/bin/python -m pytest -p no:cacheprovider -q --durations=40 \
    tests/browser tests/integration || {
    rc=$?; [ $status != 0 ] || status=$rc; }
# Waits for a tier run beside: prints its output under a title, keeps
# its exit status when none failed before.
finish() {
    local pid=$1 log=$2 title=$3 rc=0
    wait "$pid" || rc=$?
    echo "== $title =="
    cat "$log"
    [ $rc = 0 ] || [ $status != 0 ] || status=$rc
}
finish $unit_pid "$unit_log" "the unit and functional tests"
finish $client_pid "$client_log" "the CLI plugin's tests (client/)"
.venv/bin/python tools/cloud/check_clean.py --since "$before" || {
    rc=$?; [ $status != 0 ] || status=$rc; }
[ $cloud_was_up = 1 ] || tools/cloud/down.sh >/dev/null 2>&1 || true
exit $status

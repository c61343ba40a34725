#!/bin/bash
# Offers, not refusals, in one run against the service: a search for
# offers, a booking from one, a refusal with its counter offer, a standby
# booking promoted by a cancellation, a weekly series and a booking
# shared with another project. Each step is the command a researcher
# types, printed as "$ command" before its output, with a comment saying
# what it shows; doc/source/cli/offers-transcript.txt is its output.
#
# It starts reserve-all-in-one of this checkout on a free loopback port
# with its own temporary state directory, and stops it and removes that
# directory on exit, whatever happens. With no nova at hand, the
# catalogue (a nova host, flavor gpu.a100 of 4 slots) is written into
# the database before the service starts, as tests/browser/seed.py does
# for the calendar page's tests; on a cloud, "openstack reserve host
# create" and "flavor create --nova-flavor ... --slots 4" make the same
# entries. The bookings are admitted and ALLOCATED as on a cloud; their
# nova objects would be built at their start.
#
# It is a check as well as a show: it exits non-zero, saying why, as soon
# as a step does not show what it should (no counter offer in the
# refusal, a standby not promoted within STANDBY_WAIT seconds, ...).
#
#   tools/demo-offers.sh [> transcript.txt]
#
# Needs .venv (tools/install.sh), curl and python3.
set -uo pipefail
cd "$(dirname "$0")/.."
REPO=$PWD
VENV=${VENV:-$REPO/.venv}
STANDBY_WAIT=${STANDBY_WAIT:-30}
STARTUP_WAIT=120
FLAVOR=gpu.a100
# Keystone-style project ids (the API takes no other for a share): a
# colleague's project, and one the booking is not shared with.
SHARED_PROJECT=5c8e0f3a9d1b4e7f8a2c6b0d4e9f1a37
OTHER_PROJECT=e7a1c2d3b4f5061728394a5b6c7d8e9f

for tool in "$VENV/bin/python" "$VENV/bin/openstack" \
        "$VENV/bin/reserve-all-in-one"; do
    [ -x "$tool" ] || { echo "demo-offers: $tool is missing; run" \
        "tools/install.sh first" >&2; exit 2; }
done
command -v curl >/dev/null || { echo "demo-offers: curl is missing" >&2
                                exit 2; }

WORK=$(mktemp -d "${TMPDIR:-/tmp}/reserve-demo-offers.XXXXXX")
AIO_PID=
cleanup() {
    if [ -n "$AIO_PID" ] && kill -0 "$AIO_PID" 2>/dev/null; then
        kill -TERM "$AIO_PID" 2>/dev/null
        for _ in $(seq 200); do
            kill -0 "$AIO_PID" 2>/dev/null || break
            sleep 0.1
        done
        kill -KILL "$AIO_PID" 2>/dev/null
        wait "$AIO_PID" 2>/dev/null
    fi
    rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

die() {
    echo "demo-offers: FAILED: $*" >&2
    exit 1
}

# The commands run as typed: openstack and the console scripts of .venv,
# the code of this checkout.
export PATH="$VENV/bin:$PATH"
export PYTHONPATH="$REPO${PYTHONPATH:+:$PYTHONPATH}"
export PYTHONUNBUFFERED=1
unset OS_CLOUD OS_AUTH_URL OS_TOKEN OS_USERNAME OS_PASSWORD \
      OS_PROJECT_ID OS_PROJECT_NAME OS_RESERVE_API_VERSION

PORT=$(python -c 'import socket; s = socket.socket(); '\
's.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
export OS_AUTH_TYPE=none OS_RESERVE_URL=http://127.0.0.1:$PORT
STATE=$WORK/state
mkdir -p "$STATE"
printf '[api]\nhost_ip = 127.0.0.1\nport = %s\n' "$PORT" >"$WORK/reserve.conf"
python -m tests.browser.seed "sqlite:///$STATE/reserve.sqlite" \
    --flavor "$FLAVOR" --slots 4 >"$WORK/seed.log" 2>&1 ||
    { cat "$WORK/seed.log" >&2; die "the catalogue could not be written"; }
reserve-all-in-one --config-file "$WORK/reserve.conf" --state-dir "$STATE" \
    >"$WORK/all-in-one.log" 2>&1 &
AIO_PID=$!
for _ in $(seq $((STARTUP_WAIT * 5))); do
    curl -sf -o /dev/null "$OS_RESERVE_URL/" && break
    kill -0 "$AIO_PID" 2>/dev/null || break
    sleep 0.2
done
curl -sf -o /dev/null "$OS_RESERVE_URL/" || {
    tail -n 30 "$WORK/all-in-one.log" >&2
    die "reserve-all-in-one did not start"; }

OUT=$WORK/out
# say TEXT: a comment of the transcript.
say() { printf '\n# %s\n' "$*"; }
# run COMMAND: print it as typed, run it; its output (stdout and stderr)
# is shown and kept in $OUT; its exit status is returned.
run() {
    printf '$ %s\n' "$1"
    eval "$1" >"$OUT" 2>&1
    local rc=$?
    cat "$OUT"
    return $rc
}
# field NAME: a field of the "openstack ... show"-style table in $OUT.
field() {
    awk -F'|' -v name="$1" '{ key = $2; gsub(/^ +| +$/, "", key) }
        key == name { value = $3; gsub(/^ +| +$/, "", value); print value;
                      exit }' "$OUT"
}
# api_command PROJECT PATH: the curl command that GETs PATH of the API as
# a member of PROJECT, the way keystone's token would present it (without
# keystone, the service trusts these headers from loopback).
api_command() {
    printf "curl -s -H 'X-Project-Id: %s' -H 'X-Roles: member,reader' \
-H 'OpenStack-API-Version: reserve latest' %s%s | python3 -m json.tool" \
        "$1" "$OS_RESERVE_URL" "$2"
}

DAY1=$(date -u -d 'tomorrow' +%F)
DAY2=$(date -u -d '+2 days' +%F)
DAY3=$(date -u -d '+3 days' +%F)

echo "# reserve-all-in-one of $(git -C "$REPO" describe --always --dirty 2>/dev/null || echo 'this checkout'),"
echo "# on $OS_RESERVE_URL (no authentication), $(date -u +%FT%TZ)"
echo '$ export OS_AUTH_TYPE=none OS_RESERVE_URL='"$OS_RESERVE_URL"

say "The catalogue: one flavor, 4 slots (4 instances at once)."
run "openstack reserve flavor list -c Name -c Slots -c Active" ||
    die "flavor list failed"

say "1. Search: windows of 4 hours in which 2 instances are admitted now."
run "openstack reserve offer list --flavor $FLAVOR --count 2 --duration PT4H \
--earliest-start ${DAY1}T09:00:00Z --limit 3" || die "offer list failed"
OFFER=$(awk -F'|' '/^\| [0-9a-f-]{36} /{ id = $2; gsub(/ /, "", id);
                                         print id; exit }' "$OUT")
OFFER_START=$(awk -F'|' '/^\| [0-9a-f-]{36} /{ s = $5; gsub(/ /, "", s);
                                               print s; exit }' "$OUT")
[ -n "$OFFER" ] || die "offer list offered nothing"

say "2. Book the first offer as it is: its flavor, window and instances."
run "openstack reserve reservation create --offer $OFFER" ||
    die "booking offer $OFFER failed"
BOOKED=$(field id)
[ -n "$BOOKED" ] && [ "$(field start)" = "$OFFER_START" ] &&
    [ "$(field instance_count)" = 2 ] ||
    die "the booking of offer $OFFER is not the offer's window"

say "Another booking, of 1 instance, in the same window: 3 of the 4 slots" \
    "are taken from 09:00 to 13:00."
run "openstack reserve reservation create --flavor $FLAVOR \
--start ${DAY1}T09:00:00Z --end ${DAY1}T13:00:00Z --instance-count 1" ||
    die "the second booking was refused"
IN_THE_WAY=$(field id)

say "3. A refusal is a counter offer: 2 instances from 10:00 do not fit;" \
    "the 409 names the nearest windows before and after and the largest" \
    "count that fits, as the commands that book them."
if run "openstack reserve reservation create --flavor $FLAVOR \
--start ${DAY1}T10:00:00Z --end ${DAY1}T14:00:00Z --instance-count 2"; then
    die "the booking that does not fit was accepted"
fi
grep -q 'HTTP 409, reserve.no_capacity' "$OUT" ||
    die "the refusal is not a 409 no_capacity"
grep -q 'at most 1 do' "$OUT" ||
    die "the refusal does not name the largest count that fits (1)"
grep -q '^  the earlier window: openstack reserve reservation create' "$OUT" ||
    die "the refusal offers no earlier window"
grep -q '^  the later window: openstack reserve reservation create' "$OUT" ||
    die "the refusal offers no later window"
grep -q '^  the most that fit then (1): openstack reserve reservation create' \
    "$OUT" || die "the refusal offers no booking of the 1 instance that fits"

say "4. The same request on standby: it waits, holding nothing..."
run "openstack reserve reservation create --flavor $FLAVOR \
--start ${DAY1}T10:00:00Z --end ${DAY1}T14:00:00Z --instance-count 2 \
--standby" || die "the standby request failed"
WAITER=$(field id)
[ "$(field status)" = STANDBY ] || die "the request is not on standby"

say "... until the booking in its way is cancelled: reserve-worker's" \
    "standby pass (every 10 s, and at once after a cancel) admits it."
run "openstack reserve reservation delete $IN_THE_WAY" ||
    die "cancelling $IN_THE_WAY failed"
T0=$(date +%s.%N)
printf '$ while [ "$(openstack reserve reservation show %s -f value -c status)" = STANDBY ]; do sleep 1; done\n' "$WAITER"
STATUS=STANDBY
POLLS=0
while :; do
    STATUS=$(openstack reserve reservation show "$WAITER" -f value -c status)
    POLLS=$((POLLS + 1))
    ELAPSED=$(python -c "import sys; print('%.1f' % (float(sys.argv[2]) - \
float(sys.argv[1])))" "$T0" "$(date +%s.%N)")
    [ "$STATUS" != STANDBY ] && break
    python -c "import sys; sys.exit(float(sys.argv[1]) < $STANDBY_WAIT)" \
        "$ELAPSED" && break
    sleep 1
done
if [ "$STATUS" = STANDBY ]; then
    die "the standby reservation $WAITER was not promoted within" \
        "${STANDBY_WAIT} s of the cancel"
fi
echo "# STANDBY -> $STATUS ${ELAPSED} s after the cancel returned, seen" \
     "at poll $POLLS (an openstack command takes a second or two to start)"
run "openstack reserve reservation show $WAITER -c id -c instance_count \
-c start -c end -c status -c lease_id -c standby_since" ||
    die "reservation show $WAITER failed"
case $(field status) in
    PENDING_CREATE|ALLOCATED) ;;
    *) die "the promoted reservation is $(field status)" ;;
esac

say "5. A weekly series: the window every week, four times, each" \
    "occurrence a reservation of its own, all or none."
run "openstack reserve reservation create --flavor $FLAVOR \
--start ${DAY2}T09:00:00Z --end ${DAY2}T18:00:00Z \
--recurrence \"FREQ=WEEKLY;COUNT=4\"" || die "the series was refused"
SERIES=$(field id)
[ -n "$SERIES" ] || die "no series was made"
run "openstack reserve series show $SERIES -c id -c recurrence \
-c occurrences -c refused" || die "series show $SERIES failed"
OCCURRENCES=$(grep -cE '[0-9]Z - [0-9-]+T[0-9:]+Z +[A-Z_]+ +[0-9a-f-]{36}' \
              "$OUT")
[ "$OCCURRENCES" = 4 ] || die "the series has $OCCURRENCES occurrences, not 4"
[ -z "$(field refused)" ] || die "occurrences of the series were refused"

say "6. A shared booking: the project $SHARED_PROJECT may boot its" \
    "reserved flavor too."
run "openstack reserve reservation create --flavor $FLAVOR \
--start ${DAY3}T09:00:00Z --end ${DAY3}T18:00:00Z --share $SHARED_PROJECT \
--wait" || die "the shared booking failed"
SHARED=$(field id)
FLAVOR_TO_BOOT=$(field reserved_flavor_id)

say "The owner's view: every project it is shared with."
run "openstack reserve reservation show $SHARED -c id -c project_id \
-c status -c reserved_flavor_id -c shared_project_ids" ||
    die "reservation show $SHARED failed"
[ "$(field shared_project_ids)" = "$SHARED_PROJECT" ] ||
    die "the owner does not see the share"

say "The shared project's view (as the API answers its member): the" \
    "reserved flavor to boot, and itself alone among the shares."
run "$(api_command "$SHARED_PROJECT" "/v1/reservations/$SHARED")" ||
    die "the shared project cannot read $SHARED"
python - "$OUT" "$FLAVOR_TO_BOOT" "$SHARED_PROJECT" <<'EOF' ||
import json
import sys
seen = json.load(open(sys.argv[1]))['reservation']
sys.exit(not (seen['reserved_flavor_id'] == sys.argv[2] and
              seen['shared_project_ids'] == [sys.argv[3]]))
EOF
    die "the shared project does not see the flavor to boot"

say "A project it is not shared with is told it does not exist."
run "$(api_command "$OTHER_PROJECT" "/v1/reservations/$SHARED")"
grep -q '"status": 404' "$OUT" ||
    die "a project it is not shared with can read $SHARED"

say "Every booking of the run."
run "openstack reserve reservation list" || die "reservation list failed"

say "All steps showed what they should."

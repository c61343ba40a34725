#!/bin/bash
# Stop the loopback cloud started by up.sh: exactly the process groups listed in
# $RESERVE_CLOUD_DIR/state/run/pids (nova, placement, stubs, then the private
# RabbitMQ node and the private MariaDB). Other processes on this machine, the
# system RabbitMQ and MariaDB included, are left alone. State files are kept
# (up.sh wipes them). Usage: down.sh [-q]
set -u
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"
take_lock
QUIET=0; [ "${1:-}" = "-q" ] && QUIET=1
say() { [ $QUIET = 1 ] || echo "$@"; }

[ -s "$PIDS" ] || { say "reserve-cloud: nothing running (no $PIDS)"; exit 0; }

# Is any process of the group led by $1 still alive? (the leader may be gone already)
group_alive() { kill -0 -- "-$1" 2>/dev/null || kill -0 "$1" 2>/dev/null; }
# A live pid is only ours if it still leads its process group (else it was reused).
ours() { ! kill -0 "$1" 2>/dev/null || [ "$(ps -o pgid= -p "$1" 2>/dev/null | tr -d ' ')" = "$1" ]; }

# stop_groups GRACE_SECONDS "name pid" ...: TERM each group, wait, then KILL what is left
stop_groups() {
  local grace=$1 e name pid alive i; shift
  for e in "$@"; do
    read -r name pid <<<"$e"
    if ! ours "$pid"; then say "skip $name $pid (pid now used by another process)"; continue; fi
    kill -TERM -- "-$pid" 2>/dev/null || kill -TERM "$pid" 2>/dev/null || true
  done
  for ((i = 0; i < grace * 10; i++)); do
    alive=0
    for e in "$@"; do read -r name pid <<<"$e"; ours "$pid" && group_alive "$pid" && alive=1; done
    [ $alive = 0 ] && return 0
    sleep 0.1
  done
  for e in "$@"; do
    read -r name pid <<<"$e"
    if ours "$pid" && group_alive "$pid"; then
      kill -KILL -- "-$pid" 2>/dev/null || kill -KILL "$pid" 2>/dev/null || true
      say "$name ($pid): still running after ${grace}s, SIGKILL"
    fi
  done
}

T0=$(now_ms)
SERVICES=(); BACKENDS=()
while read -r name pid; do
  [ -n "${pid:-}" ] || continue
  case $name in
    rabbitmq|mariadb) BACKENDS+=("$name $pid") ;;
    *) SERVICES+=("$name $pid") ;;
  esac
done < <(tac "$PIDS")
# The OpenStack services first, while RabbitMQ and MariaDB still answer (nothing of
# their state is kept: 2 s of grace, where a graceful nova shutdown can take 10 s), then the
# backends, which flush on TERM.
[ ${#SERVICES[@]} = 0 ] || stop_groups 2 "${SERVICES[@]}"
[ ${#BACKENDS[@]} = 0 ] || stop_groups 20 "${BACKENDS[@]}"
rm -f "$PIDS"
say "reserve-cloud: stopped $(( ${#SERVICES[@]} + ${#BACKENDS[@]} )) process groups in $(( $(now_ms) - T0 )) ms"

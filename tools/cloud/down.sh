#!/bin/bash
# Stop the loopback cloud started by up.sh: exactly the process groups listed in
# $RESERVE_CLOUD_DIR/state/run/pids (nova, placement, stubs, then the private
# RabbitMQ node and the private MariaDB). Other processes on this machine, the
# system RabbitMQ and MariaDB included, are left alone. State files are kept
# (up.sh wipes them). Usage: down.sh [-q]; RESERVE_CLOUD_NOVA_GRACE: seconds nova's
# services get to shut down before SIGKILL (default 15).
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

# Seconds between SIGTERM and SIGKILL. nova's services shut down gracefully
# on SIGTERM (RPC servers stopped, thread pools drained: a few seconds when
# idle, more while a request is in flight), so they get longer than the rest,
# which exits at once; a SIGKILL then means a service that hung.
NOVA_GRACE=${RESERVE_CLOUD_NOVA_GRACE:-15}
grace_of() { case $1 in nova-*) echo "$NOVA_GRACE" ;; *) echo "$2" ;; esac; }

# stop_groups GRACE_SECONDS "name pid" ...: TERM each group at once, wait for
# them, KILL each group still there after its grace (GRACE_SECONDS, or
# NOVA_GRACE for nova's services)
stop_groups() {
  local grace=$1 e name pid alive waited t0; shift
  local -a names=() pids=() graces=() live=()
  t0=$(now_ms)
  for e in "$@"; do
    read -r name pid <<<"$e"
    if ! ours "$pid"; then say "skip $name $pid (pid now used by another process)"; continue; fi
    kill -TERM -- "-$pid" 2>/dev/null || kill -TERM "$pid" 2>/dev/null || true
    names+=("$name"); pids+=("$pid"); graces+=("$(grace_of "$name" "$grace")"); live+=(1)
  done
  while :; do
    alive=0 waited=$(( $(now_ms) - t0 ))
    for e in "${!pids[@]}"; do
      [ "${live[$e]}" = 1 ] || continue
      pid=${pids[$e]}
      if ! { ours "$pid" && group_alive "$pid"; }; then live[$e]=0; continue; fi
      if (( waited >= graces[e] * 1000 )); then
        kill -KILL -- "-$pid" 2>/dev/null || kill -KILL "$pid" 2>/dev/null || true
        say "${names[$e]} ($pid): still running ${graces[$e]}s after SIGTERM, SIGKILL"
        live[$e]=0; continue
      fi
      alive=1
    done
    [ $alive = 0 ] && return 0
    sleep 0.1
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
# The OpenStack services first, while RabbitMQ and MariaDB still answer (2 s of grace,
# NOVA_GRACE for nova's, which shut down gracefully), then the backends, which flush
# on TERM.
[ ${#SERVICES[@]} = 0 ] || stop_groups 2 "${SERVICES[@]}"
[ ${#BACKENDS[@]} = 0 ] || stop_groups 20 "${BACKENDS[@]}"
rm -f "$PIDS"
say "reserve-cloud: stopped $(( ${#SERVICES[@]} + ${#BACKENDS[@]} )) process groups in $(( $(now_ms) - T0 )) ms"

#!/usr/bin/env bash
# Make, once, the virtualenv that runs blazar_pickup.py: blazar 18.0.0
# from PyPI, kept apart from reserve's own venv. Prints the venv's
# python on its last line (progress goes to stderr):
#
#     PY=$(tests/benchmarks/blazar_venv.sh | tail -n 1)
#     $PY tests/benchmarks/blazar_pickup.py --hosts 100 --bookings 10000
#
# BLAZAR_BENCH_VENV     where (default /var/tmp/reserve-bench/blazar-venv)
# BLAZAR_BENCH_PYTHON   the interpreter to make it with (default
#                       python3.11, else python3; blazar needs >= 3.11)
#
# A stamp file holds the requirement and constraints installed: the venv
# is made again only when they change or the venv is gone.
set -euo pipefail

VENV=${BLAZAR_BENCH_VENV:-/var/tmp/reserve-bench/blazar-venv}
PYTHON=${BLAZAR_BENCH_PYTHON:-}
if [ -z "$PYTHON" ]; then
    PYTHON=$(command -v python3.11 || command -v python3)
fi

REQUIREMENT='blazar==18.0.0'
# blazar installs as is; these pin what the timed path runs through to
# the versions reserve's venv has, so that both sides of the benchmark
# use the same SQLAlchemy and oslo.db.
CONSTRAINTS='SQLAlchemy==2.1.9
oslo.db==18.1.1
oslo.config==10.7.0'

STAMP=$VENV/.reserve-bench-stamp
WANT=$(printf '%s\n%s\n' "$REQUIREMENT" "$CONSTRAINTS")

if [ -x "$VENV/bin/python" ] && [ -f "$STAMP" ] &&
        [ "$(cat "$STAMP")" = "$WANT" ]; then
    echo "blazar venv is ready: $VENV" >&2
else
    "$PYTHON" -c 'import sys; sys.exit(sys.version_info < (3, 11))' || {
        echo "blazar 18.0.0 needs Python >= 3.11; $PYTHON is" \
            "$("$PYTHON" -V 2>&1)" >&2
        exit 1
    }
    if [ -e "$VENV" ]; then
        # Only ever remove a virtualenv (of ours, or a stale one).
        [ -f "$VENV/pyvenv.cfg" ] || {
            echo "$VENV exists and is no virtualenv; not touching it" >&2
            exit 1
        }
        rm -rf "$VENV"
    fi
    echo "making the blazar venv in $VENV with $PYTHON" >&2
    mkdir -p "$(dirname "$VENV")"
    "$PYTHON" -m venv "$VENV"
    printf '%s\n' "$CONSTRAINTS" > "$VENV/constraints.txt"
    "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check \
        -c "$VENV/constraints.txt" "$REQUIREMENT" >&2
    # The import blazar_pickup.py needs, to fail here rather than there.
    "$VENV/bin/python" -W ignore -c \
        'import blazar.plugins.instances.instance_plugin' >&2
    printf '%s\n' "$WANT" > "$STAMP"
fi
echo "$VENV/bin/python"

#!/bin/bash
# Prepare this checkout: system packages, a virtualenv in .venv with
# reserve and its CLI plugin (editable) and, with --test, what the tests
# need. Idempotent.
set -euo pipefail
SELF=$(readlink -f "$0")
cd "$(dirname "$0")/.."
VENV=${RESERVE_VENV:-.venv}
PY=${PYTHON:-python3}

want_apt=()
command -v pkg-config >/dev/null || want_apt+=(pkg-config)
pkg-config --exists libvirt 2>/dev/null || want_apt+=(libvirt-dev)
# The browser tests (tests/browser) drive Debian's headless Chromium.
if [ "${1:-}" = --test ]; then
    command -v chromium >/dev/null || want_apt+=(chromium)
    command -v chromedriver >/dev/null || want_apt+=(chromium-driver)
fi
if [ ${#want_apt[@]} -gt 0 ]; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
        echo "Installing ${want_apt[*]} (apt)"
        apt-get update -qq >/dev/null
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${want_apt[@]}" >/dev/null
    else
        echo "Please install: ${want_apt[*]}" >&2; exit 1
    fi
fi

[ -x "$VENV/bin/python" ] || "$PY" -m venv "$VENV"
stamp="$VENV/.installed"
reqs=(requirements.txt)
[ "${1:-}" = --test ] && reqs+=(test-requirements.txt)
sum=$(cat "$SELF" setup.cfg client/setup.cfg client/requirements.txt "${reqs[@]}" | sha1sum | cut -c1-12)-${#reqs[@]}
if ! grep -qx "$sum" "$stamp" 2>/dev/null; then
    echo "Installing reserve and its dependencies into $VENV"
    "$VENV/bin/pip" install -q --upgrade pip
    # The CLI plugin (openstack reserve ...) is its own distribution;
    # python-openstackclient gives it the openstack command.
    "$VENV/bin/pip" install -q $(printf -- '-r %s ' "${reqs[@]}") -e . -e ./client \
        'python-openstackclient>=7.0.0'
    echo "$sum" >> "$stamp"
fi

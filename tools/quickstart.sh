#!/bin/bash
# Bring reserve up on its embedded defaults: the four daemons in one
# process, SQLite under ./state, the in-memory message bus, no auth.
set -euo pipefail
cd "$(dirname "$0")/.."
tools/install.sh
exec .venv/bin/reserve-all-in-one "$@"

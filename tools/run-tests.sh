#!/bin/bash
# Run every test of reserve: unit, functional and integration (the last
# brings up placement and nova on loopback, see tools/cloud/).
#   tools/run-tests.sh                 everything
#   tools/run-tests.sh tests/unit      a part (any pytest arguments)
set -euo pipefail
cd "$(dirname "$0")/.."
tools/install.sh --test
tools/services.sh
export RESERVE_TEST_REQUIRE_BACKENDS=1
if [ $# -gt 0 ]; then
    exec .venv/bin/python -m pytest -p no:cacheprovider -q "$@"
fi
# The service, then the CLI plugin (its own distribution and settings).
.venv/bin/python -m pytest -p no:cacheprovider -q tests
cd client && exec ../.venv/bin/python -m pytest -p no:cacheprovider -q reserveclient/tests

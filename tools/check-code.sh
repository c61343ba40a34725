#!/bin/bash
# Fail on code nothing calls and on code written twice, over reserve/.
#   Dead code: vulture, with tools/vulture_whitelist.py naming what a
#   framework, an entry point or the tests call (settings in
#   pyproject.toml, [tool.vulture]).
#   The same code twice: pylint's duplicate finder only, six similar
#   lines or more (pyproject.toml, [tool.pylint.*]).
# Both run; the first failure sets the exit status. Needs the test
# requirements (tools/install.sh --test).
set -uo pipefail
cd "$(dirname "$0")/.."
status=0
.venv/bin/vulture || status=$?
.venv/bin/pylint --score=n reserve || { rc=$?; [ $status != 0 ] || status=$rc; }
exit $status

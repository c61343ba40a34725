#!/bin/bash
# Fail on style errors, on code nothing calls and on code written twice.
#   Style: flake8 ([flake8] in tox.ini) over the code and the tests.
#   Dead code: vulture, with tools/vulture_whitelist.py naming what a
#   framework, an entry point or the tests call (settings in
#   pyproject.toml, [tool.vulture]).
#   The same code twice: pylint's duplicate finder only, six similar
#   lines or more (pyproject.toml, [tool.pylint.*]).
# All run; the first failure sets the exit status. Needs the test
# requirements (tools/install.sh --test).
set -uo pipefail
cd "$(dirname "$0")/.."
status=0
.venv/bin/flake8 reserve reserve_fakes tests client || status=$?
.venv/bin/vulture || { rc=$?; [ $status != 0 ] || status=$rc; }
.venv/bin/pylint --score=n reserve || { rc=$?; [ $status != 0 ] || status=$rc; }
exit $status

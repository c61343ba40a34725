"""Check that the loopback cloud holds nothing reserve or a test left.

Run with reserve's venv after the test suite (tools/run-tests.sh):

    .venv/bin/python tools/cloud/check_clean.py [--since FILE]
    .venv/bin/python tools/cloud/check_clean.py --save FILE

--save records what the cloud holds now (before the tests: a quick start
running beside them may hold a booking and fence its hosts), and --since
then reports only what was not there then.

Reads nova and placement over HTTP with the loopback headers
(tests/integration/cloud.py) and lists any reservation:* flavor, any
aggregate (tools/cloud makes none), any CUSTOM_RESERVATION_* resource
class, any inventory on a reserve_* child provider, and the fence's
aggregate or trait (CUSTOM_RESERVE_FENCED*). Exit status: 0 when the
cloud is clean or not running, 1 with the list otherwise, 2 when the
cloud answers but cannot be read.
"""
import argparse
import json
import os
import sys

REPO = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
sys.path.insert(0, REPO)

from tests.integration import cloud  # noqa: E402
from tests.integration import cloud_lifecycle  # noqa: E402


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    group = parser.add_mutually_exclusive_group()
    group.add_argument('--save', metavar='FILE',
                       help='record what the cloud holds now')
    group.add_argument('--since', metavar='FILE',
                       help='report only what FILE did not record')
    args = parser.parse_args()
    if not cloud_lifecycle.is_up():
        if args.save:
            with open(args.save, 'w') as f:
                json.dump([], f)
        print('check_clean: the loopback cloud is not running: nothing to '
              'check')
        return 0
    try:
        found = cloud.leftovers()
    except (cloud.CloudError, OSError, ValueError) as exc:
        print('check_clean: cannot read the loopback cloud: %s' % exc,
              file=sys.stderr)
        return 2
    if args.save:
        with open(args.save, 'w') as f:
            json.dump(found, f)
        print('check_clean: %d object(s) there before the tests' %
              len(found))
        return 0
    if args.since and os.path.exists(args.since):
        with open(args.since) as f:
            before = set(json.load(f))
        found = [line for line in found if line not in before]
    if not found:
        print('check_clean: the loopback cloud is clean')
        return 0
    print('check_clean: the loopback cloud holds %d leftover(s) of the '
          'tests:' % len(found), file=sys.stderr)
    for line in found:
        print('  ' + line, file=sys.stderr)
    return 1


if __name__ == '__main__':
    sys.exit(main())

"""reserve-status upgrade check."""
import sys

from oslo_config import cfg
from oslo_upgradecheck import common_checks
from oslo_upgradecheck import upgradecheck

from reserve import conf as reserve_conf  # noqa: F401 (registers options)
from reserve.db import migration

CONF = cfg.CONF


class Checks(upgradecheck.UpgradeCommands):
    def _check_schema(self):
        try:
            current, head = migration.version(), migration.head()
        except Exception as exc:
            return upgradecheck.Result(
                upgradecheck.Code.FAILURE,
                'Cannot read the database schema: %s' % exc)
        if current != head:
            return upgradecheck.Result(
                upgradecheck.Code.FAILURE,
                'Database schema is at %s, the code wants %s: run '
                '"reserve-manage db sync".' % (current, head))
        return upgradecheck.Result(upgradecheck.Code.SUCCESS)

    def _check_auth(self):
        if CONF.api.auth_strategy == 'noauth':
            return upgradecheck.Result(
                upgradecheck.Code.WARNING,
                '[api]auth_strategy is noauth: anyone reaching the API '
                'acts as whoever they claim to be.')
        return upgradecheck.Result(upgradecheck.Code.SUCCESS)

    _upgrade_checks = (
        ('Database schema', _check_schema),
        ('API authentication', _check_auth),
        ('Policy file', (common_checks.check_policy_json,
                         {'conf': CONF})),
    )


def main():
    return upgradecheck.main(CONF, project='reserve',
                             upgrade_command=Checks())


if __name__ == '__main__':
    sys.exit(main())


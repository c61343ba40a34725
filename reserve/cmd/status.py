"""reserve-status upgrade check."""
import sys

from oslo_config import cfg
from oslo_upgradecheck import common_checks
from oslo_upgradecheck import upgradecheck

from reserve.capacity import gpus
from reserve.common import context as reserve_context
from reserve import conf as reserve_conf  # noqa: F401 (registers options)
from reserve.common import exception
from reserve.common import nova
from reserve.common import placement
from reserve.db import flavors as flavors_db
from reserve.db import hosts as hosts_db
from reserve.db import migration
from reserve.fence import fence

CONF = cfg.CONF

# How migration 0002 (the booking desk) describes the catalogue flavors
# it made for the nova flavors that earlier reservations named; an
# operator who reviews one replaces the description or enables it.
MIGRATED_NOTE_START = ('Created by migration 0002 for the reservations '
                       'that named nova flavor ')
# Names listed in full before "and N more".
LISTED = 10


def _listed(names):
    """The first LISTED names, and how many more there are."""
    listed = ', '.join(names[:LISTED])
    if len(names) > LISTED:
        listed += ' and %d more' % (len(names) - LISTED)
    return listed


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
                'acts as whoever its headers say it is.')
        return upgradecheck.Result(upgradecheck.Code.SUCCESS)

    def _check_migrated_flavors(self):
        """Flavors the booking desk's migration made for reservations
        older than the catalogue are inactive with no slots until an
        operator reviews them: until then their reservations cannot be
        extended and nobody can book them."""
        try:
            flavors = flavors_db.flavor_list(
                reserve_context.get_admin_context(),
                filters={'active': False})
        except Exception as exc:
            return upgradecheck.Result(
                upgradecheck.Code.SUCCESS,
                'No catalogue to check yet (%s): run this again after '
                '"reserve-manage db sync".' % exc.__class__.__name__)
        names = sorted(f.name for f in flavors
                       if (f.description or '').startswith(
                           MIGRATED_NOTE_START))
        if not names:
            return upgradecheck.Result(upgradecheck.Code.SUCCESS)
        listed = _listed(names)
        return upgradecheck.Result(
            upgradecheck.Code.WARNING,
            '%d catalogue flavor(s) made by migration 0002 for reservations '
            'older than the catalogue are still inactive: %s. Nobody can '
            'book them and their reservations cannot be extended. Review '
            'each, then give it its slots and enable it: "openstack '
            'reserve flavor set <flavor> --slots <count> --enable" (PATCH '
            '/v1/flavors/<id> {"slots": <count>, "active": true}); to keep '
            'one disabled, replace its description ("--description").' %
            (len(names), listed))

    def _check_unsized_flavors(self):
        """Catalogue entries written before migration 0005 have no record
        of their nova flavor: admission cannot place their bookings (409
        reserve.flavor_not_sized) until each is written again."""
        try:
            flavors = flavors_db.flavor_list(
                reserve_context.get_admin_context())
        except Exception as exc:
            return upgradecheck.Result(
                upgradecheck.Code.SUCCESS,
                'No catalogue to check yet (%s).' % exc.__class__.__name__)
        names = sorted(f.name for f in flavors if not f.nova_flavor)
        if not names:
            return upgradecheck.Result(upgradecheck.Code.SUCCESS)
        listed = _listed(names)
        return upgradecheck.Result(
            upgradecheck.Code.WARNING,
            '%d catalogue flavor(s) have no record of their nova flavor: '
            '%s. Their bookings are refused until each is written again, '
            'which reads it from nova: "openstack reserve flavor set '
            '<flavor> --description <same>" (PATCH /v1/flavors/<id> with '
            'any field).' % (len(names), listed))

    def _check_pci_aliases(self):
        """A [pci] alias line reserve cannot read would fail, one by one,
        every flavor that names an alias."""
        try:
            aliases = gpus.parse_aliases(CONF.pci.alias)
        except exception.Invalid as exc:
            return upgradecheck.Result(
                upgradecheck.Code.FAILURE,
                '%s. Write each alias as nova does, one JSON object a line, '
                'e.g. {"name": "a100", "vendor_id": "10de", "product_id": '
                '"20b5"}.' % exc.message)
        return upgradecheck.Result(
            upgradecheck.Code.SUCCESS,
            '%d alias(es)' % len(aliases) if aliases else None)

    def _check_fence(self):
        """Other projects' boots are kept off the reservable hosts only if
        the fence is in place and nova-scheduler enforces it, a setting no
        API shows."""
        if not CONF.fence.enabled:
            return upgradecheck.Result(
                upgradecheck.Code.SUCCESS,
                '[fence]enabled is false: not checked.')
        try:
            hosts = hosts_db.host_list(reserve_context.get_admin_context())
        except Exception as exc:
            return upgradecheck.Result(
                upgradecheck.Code.SUCCESS,
                'No hosts to check yet (%s): run this again after '
                '"reserve-manage db sync".' % exc.__class__.__name__)
        try:
            problems = fence.check(nova.NovaClient(),
                                   placement.PlacementClient(), hosts)
        except exception.CloudNotConfigured:
            return upgradecheck.Result(
                upgradecheck.Code.SUCCESS,
                '[nova] or [placement] is not configured: not checked.')
        except exception.CloudError as exc:
            problems = None
            found = 'The fence cannot be checked now (%s). ' % exc
        if problems:
            found = ('The fence has holes: %s (reserve-manager repairs '
                     'them periodically). ' % '; '.join(problems))
        elif problems is not None:
            found = 'The fence of %d reservable host(s) is in place. ' % sum(
                1 for h in hosts if h.kind == 'nova' and h.reservable)
        # What the API shows is checked; the scheduler's setting is only
        # recalled, so a complete fence is a success.
        code = (upgradecheck.Code.SUCCESS if problems == [] else
                upgradecheck.Code.WARNING)
        return upgradecheck.Result(
            code,
            found + 'Other projects\' boots are kept off reservable hosts '
            'only with [scheduler] enable_isolated_aggregate_filtering = '
            'True in the nova.conf of nova-scheduler, which the API cannot '
            'show: make sure it is set.')

    _upgrade_checks = (
        ('Database schema', _check_schema),
        ('Migrated flavors', _check_migrated_flavors),
        ('Catalogue sizes', _check_unsized_flavors),
        ('PCI aliases', _check_pci_aliases),
        ('Fenced hosts', _check_fence),
        ('API authentication', _check_auth),
        ('Policy file', (common_checks.check_policy_json,
                         {'conf': CONF})),
    )


def main():
    return upgradecheck.main(CONF, project='reserve',
                             upgrade_command=Checks())


if __name__ == '__main__':
    sys.exit(main())

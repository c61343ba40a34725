"""What the reserve commands have in common."""
import logging

from osc_lib import exceptions

from reserveclient import plugin

LOG = logging.getLogger(__name__)


class ReserveCommand:
    """Mixed into every ``openstack reserve`` command, before osc's base.

    osc reads ``auth_required`` of the command about to run, then checks
    the auth options: with nothing configured that check fails with
    "Missing value auth-url required for auth plugin password". Reading it
    here first lets :func:`reserveclient.plugin.check_environment` refuse
    with a message that says how to point the CLI at the service.
    """

    @property
    def auth_required(self):
        cloud = getattr(self.app, 'cloud', None)
        config = getattr(cloud, 'config', None)
        if isinstance(config, dict):
            plugin.check_environment(config)
        return True


def reserve_client(command):
    return command.app.client_manager.reserve


def resolve_project(command, ref):
    """A project ID from a project name or ID.

    Names are looked up in keystone when the command runs with keystone
    authentication; otherwise (``--os-auth-type none``), or when the
    lookup is not allowed, the value is used as an ID.
    """
    if ref is None:
        return None
    manager = command.app.client_manager
    try:
        auth_type = manager.get_configuration().get('auth_type')
    except Exception:  # noqa: BLE001 - a partial test double
        auth_type = None
    if auth_type in (None, 'none', 'noauth'):
        return ref
    try:
        from osc_lib.cli import identity as identity_cli
        project = identity_cli.find_project(manager.sdk_connection, ref)
        return project.id
    except Exception as exc:  # noqa: BLE001 - fall back to the ID
        LOG.debug('Could not look project %s up in keystone (%s); using '
                  'it as an ID', ref, exc)
        return ref


def delete_all(command, refs, what, delete_one):
    """Delete each ref; report every failure, fail if any failed."""
    failures = 0
    for ref in refs:
        try:
            delete_one(ref)
        except Exception as exc:  # noqa: BLE001 - report and go on
            failures += 1
            LOG.error('Failed to delete %s %s: %s', what, ref, exc)
    if failures:
        raise exceptions.CommandError(
            'Failed to delete %d of %d %ss' % (failures, len(refs), what))

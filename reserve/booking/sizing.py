"""What a catalogue entry's instances are: its nova flavor, read once.

When an administrator writes a catalogue entry, its nova flavor is read
from nova and recorded on the entry (sizes, extra specs, the GPUs they
ask for): admission then sizes instances from the record and never
waits on nova. An entry whose nova flavor does not exist, or fits on no
enrolled host, is refused: nothing booked on it could ever be placed.
"""
from oslo_config import cfg

from reserve.capacity import gpus
from reserve.capacity import model
from reserve.common import exception
from reserve.common import nova

CONF = cfg.CONF

OWN_SPEC_PREFIX = 'reserve:'


def read(nova_flavor_id, nova_client=None):
    """The record of nova flavor ``nova_flavor_id``: NovaFlavorNotFound
    (400) when nova has no such flavor, CloudError when nova cannot be
    asked now."""
    client = nova_client or nova.NovaClient()
    flavor = client.get_flavor(nova_flavor_id)
    if flavor is None:
        raise exception.NovaFlavorNotFound(id=nova_flavor_id)
    return {
        'id': flavor.id, 'name': flavor.name, 'vcpus': flavor.vcpus,
        'memory_mb': flavor.ram, 'disk_gb': flavor.disk,
        'ephemeral_gb': getattr(flavor, 'OS-FLV-EXT-DATA:ephemeral', 0)
        or 0,
        'swap_mb': flavor.swap or 0,
        'extra_specs': client.flavor_extra_specs(flavor),
        'is_public': _is_public(flavor),
    }


def _is_public(flavor):
    """Whether every project may boot the nova flavor
    (``os-flavor-access:is_public``; unknown counts as public)."""
    value = getattr(flavor, 'os-flavor-access:is_public', None)
    if value is None:
        value = getattr(flavor, 'is_public', True)
    return value is not False


def demand(record):
    """The GPUs one instance of the recorded nova flavor asks for."""
    return gpus.configured_demand(record.get('extra_specs') or {}, CONF)


def check_spot(name, record):
    """SpotFlavorRefused (400) unless the recorded nova flavor can be the
    nova flavor of spot flavor ``name``: private (only the projects that
    opted in are given access to it) and asking at least one GPU."""
    if record.get('is_public', True):
        raise exception.SpotFlavorRefused(
            name=name,
            reason='its nova flavor %s is public, so every project could '
                   'boot it on the GPUs it borrows: make the nova flavor '
                   'private (nova cannot change that of an existing '
                   'flavor: create a private one, openstack flavor create '
                   '--private ..., and name it as nova_flavor_id).'
                   % record['id'])
    if not demand(record):
        raise exception.SpotFlavorRefused(
            name=name,
            reason='its nova flavor %s asks no GPU, but a spot flavor '
                   'borrows reserved GPUs: its nova flavor must ask at '
                   'least one (resources:<class>=<n> of a GPU class, or '
                   'pci_passthrough:alias of a [pci] alias).' % record['id'])


def _describe(size):
    text = '%d vCPU, %d MB RAM, %d GB disk' % (
        size['vcpus'], size['memory_mb'], size['disk_gb'])
    if size.get('gpus'):
        text += ', GPUs %s' % gpus.describe(size['gpus'])
    return text


def check_fits(context, record):
    """NovaFlavorFitsNoHost unless one instance fits on an enrolled
    host (that passes the flavor's host filter)."""
    size = model.size_of(record)
    host_filter = model.host_filter_of(record)
    if not model.fits_anywhere(context, size, host_filter):
        raise exception.NovaFlavorFitsNoHost(
            nova_flavor=record['id'], size=_describe(size),
            filtered=(' matching %s' % model.HOST_FILTER_SPEC
                      if host_filter else ''))


def gpu_slots(context, flavor):
    """How many instances of ``flavor`` the reservable hosts' GPUs (and
    everything else) hold at once, for its view; None without GPUs."""
    if not flavor.gpus or not flavor.nova_flavor:
        return None
    return model.total(context, model.size_of(flavor.nova_flavor),
                       model.host_filter_of(flavor.nova_flavor))

"""What the cloud says of one enrolled host: each check returns what
failed, in a sentence, or None when the host is fine.

A check concludes only from an answer. When nova or placement does not
answer, or libvirt answers with an error that says nothing of the host,
it raises NoAnswer and nothing is concluded; a libvirt host that cannot
be reached is failed, as that is what its failure looks like.

* nova hosts: the nova-compute service of the host is up and enabled
  (os-services) and its hypervisor is there (``compute_failures``, which
  the diagnosis host layer reads too); ``closely`` (a booking starts on
  it soon, or it has failed) its compute node's resource provider in
  placement too, with VCPU and MEMORY_MB inventory, and the
  ``reserve_<host>`` child provider, once made, under it.
* libvirt hosts: the connection opens; the devices of the reservations
  given are still there.
"""
from reserve.common import exception
from reserve.common import placement as placement_api
from reserve.devices import hosts as device_hosts
from reserve.virt import exception as virt_exception

# Inventory a compute node's provider has when it can take instances.
INVENTORIES = ('VCPU', 'MEMORY_MB')


class NoAnswer(Exception):
    """The cloud said nothing about the host: nothing is concluded."""


def compute_failures(host, services, find_hypervisor):
    """What nova's answers show failed of nova host ``host``, a sentence
    each, in order: its nova-compute service missing, down or disabled
    (``services``: nova.compute_services of its service host), then its
    hypervisor gone (``find_hypervisor()``: nova's hypervisor of the
    host, None when it has none).

    A generator, so that the health check can take the first failure
    and ask nova no more (the hypervisor is asked for last, and only
    when the host has a service); the diagnosis takes them all.
    """
    service_host = host.service_name or host.name
    if not services:
        yield 'nova has no compute service on host %s' % service_host
        return
    for service in services:
        if service['state'] == 'down' or service['forced_down']:
            yield 'the compute service of host %s is down' % service_host
        if service['status'] == 'disabled':
            reason = service['disabled_reason']
            yield 'the compute service of host %s is disabled%s' % (
                service_host, ' (%s)' % reason if reason else '')
    if find_hypervisor() is None:
        yield 'nova has no hypervisor %s any more' % host.name


def nova_host(nova, placement, host, closely):
    try:
        failure = next(compute_failures(
            host, nova.compute_services(host.service_name or host.name),
            lambda: nova.find_hypervisor(host.name)), None)
    except exception.CloudError as exc:
        raise NoAnswer(exc.message)
    if failure is not None or not closely:
        return failure
    try:
        return _providers(placement, host)
    except exception.CloudError as exc:
        raise NoAnswer(exc.message)


def _providers(placement, host):
    provider = (placement.get_provider(host.provider_uuid)
                if host.provider_uuid else
                placement.get_provider_by_name(host.name))
    if provider is None:
        return ('placement has no resource provider for compute node %s'
                % host.name)
    inventories = placement.get_inventories(provider['uuid'])
    lacking = [rc for rc in INVENTORIES
               if not (inventories.get(rc) or {}).get('total')]
    if lacking:
        return ('the resource provider of compute node %s has no %s '
                'inventory' % (host.name, ' or '.join(lacking)))
    child_name = placement_api.CHILD_PREFIX + host.name
    child = placement.get_provider_by_name(child_name)
    # It is made at the first start on the host: missing is fine.
    if child is not None and \
            child.get('parent_provider_uuid') != provider['uuid']:
        return ('the resource provider %s is not under the provider of '
                'compute node %s' % (child_name, host.name))
    return None


def libvirt_host(host, reservations):
    """``reservations``: the device reservations whose devices must be
    there."""
    try:
        conn = device_hosts.connect(host.uri)
        if not reservations:
            return None
        present = {gpu.address for gpu in conn.gpus()}
    except virt_exception.HostUnreachable as exc:
        return exc.message
    except (exception.CloudError, exception.LibvirtUriNotAllowed) as exc:
        raise NoAnswer(exc.message)
    for reservation in reservations:
        gone = sorted(held.device.pci_address for held in reservation.devices
                      if held.device.pci_address not in present)
        if gone:
            return 'device %s of reservation %s is gone from host %s' % (
                ', '.join(gone), reservation.id, host.name)
    return None

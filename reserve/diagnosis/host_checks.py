"""What the cloud says of one enrolled host: each check returns what
failed, in a sentence, or None when the host is fine.

A check concludes only from an answer. When nova or placement does not
answer, or libvirt answers with an error that says nothing of the host,
it raises NoAnswer and nothing is concluded; a libvirt host that cannot
be reached is failed, as that is what its failure looks like.

* nova hosts: the nova-compute service of the host is up and enabled
  (os-services) and its hypervisor is there; ``closely`` (a booking
  starts on it soon, or it has failed) its compute node's resource
  provider in placement too, with VCPU and MEMORY_MB inventory, and the
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


def nova_host(nova, placement, host, closely):
    service_host = host.service_name or host.name
    try:
        services = nova.compute_services(service_host)
        if not services:
            return 'nova has no compute service on host %s' % service_host
        service = services[0]
        if service['state'] == 'down' or service['forced_down']:
            return 'the compute service of host %s is down' % service_host
        if service['status'] == 'disabled':
            reason = service['disabled_reason']
            return 'the compute service of host %s is disabled%s' % (
                service_host, ' (%s)' % reason if reason else '')
        if nova.find_hypervisor(host.name) is None:
            return 'nova has no hypervisor %s any more' % host.name
    except exception.CloudError as exc:
        raise NoAnswer(exc.message)
    if not closely:
        return None
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

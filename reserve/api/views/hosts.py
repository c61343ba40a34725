"""The representation of an enrolled host (/v1/hosts) and of its
maintenance windows."""
from reserve.api import microversion
from reserve.capacity import host_gpus
from reserve.common import timeutils


def host_view(ctx, host, libvirt_hosts=None):
    """The API representation of an enrolled host. libvirt_hosts: the
    enrolled libvirt hosts, when the caller read them for several."""
    gpus, gpu_source = None, None
    if host.kind == 'nova':
        # What flavor bookings count GPUs against, and where it came from.
        gpus, gpu_source = host_gpus.of_host(ctx, host,
                                             libvirt_hosts=libvirt_hosts)
    view = {
        'id': host.id,
        'name': host.name,
        'service_name': host.service_name,
        'kind': host.kind,
        'provider_uuid': host.provider_uuid,
        'vcpus': host.vcpus,
        'memory_mb': host.memory_mb,
        'local_gb': host.local_gb,
        'reservable': bool(host.reservable),
        'capabilities': {c.key: c.value for c in host.capabilities},
        'gpus': gpus,
        'gpu_source': gpu_source,
        # libvirt hosts
        'uri': host.uri,
        'topology_generation': host.topology_generation,
        'refreshed_at': timeutils.isoformat(host.refreshed_at),
        'refresh_error': host.refresh_error,
        'created_at': timeutils.isoformat(host.created_at),
        'updated_at': timeutils.isoformat(host.updated_at),
    }
    if microversion.serves(microversion.PLAYBOOK):
        view['failure'] = host.failure
        view['failed_at'] = timeutils.isoformat(host.failed_at)
    return view


def window_view(window):
    """A host maintenance window."""
    return {'id': window.id, 'host_id': window.host_id,
            'start': timeutils.isoformat(window.start),
            'end': timeutils.isoformat(window.end),
            'note': window.note,
            'created_at': timeutils.isoformat(window.created_at)}

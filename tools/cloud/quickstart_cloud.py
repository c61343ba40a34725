"""The loopback cloud of the quick start: up, with GPUs and a GPU flavor.

Brings the placement + nova of tools/cloud up unless it already answers
(the same bring-up as the integration tests), then gives it what a
newcomer books:

* each fake compute (host1, host2) two vGPUs, the way nova's libvirt
  driver reports them: VGPU inventory on a child provider of the compute
  node (the fake driver reports no devices of its own, and leaves alone
  the child providers it did not create);
* a nova flavor ``g1.vgpu`` (1 vCPU, 512 MB, 1 GB disk) with
  ``resources:VGPU=1``, that the catalogue can map.

Safe to run again: what exists is kept. Prints the endpoints.
"""
import contextlib
import os
import sys

REPO = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
sys.path.insert(0, REPO)

from tests.integration import cloud  # noqa: E402
from tests.integration import cloud_lifecycle  # noqa: E402

GPU_FLAVOR = 'g1.vgpu'
VGPUS_PER_HOST = 2


def _check(resp, what):
    if resp.status_code >= 400:
        raise cloud.CloudError('%s: %d %s' % (what, resp.status_code,
                                              resp.text))
    return resp


def add_vgpus(host):
    """A child provider of ``host``'s compute node with VGPUS_PER_HOST
    vGPUs; returns its name."""
    name = '%s_pgpu_0000_3b_00_0' % host
    found = cloud.placement_get('/resource_providers?name=%s' % name)
    if found['resource_providers']:
        return name
    child = _check(cloud.placement_request('POST', '/resource_providers', {
        'name': name, 'parent_provider_uuid': cloud.provider_uuid(host)}),
        'create provider %s' % name).json()
    _check(cloud.placement_request(
        'PUT', '/resource_providers/%s/inventories' % child['uuid'],
        {'resource_provider_generation': child['generation'],
         'inventories': {'VGPU': {'total': VGPUS_PER_HOST,
                                  'max_unit': VGPUS_PER_HOST}}}),
        'inventory of %s' % name)
    return name


def add_gpu_flavor(nova):
    for flavor in nova.flavors.list(is_public=None):
        if flavor.name == GPU_FLAVOR:
            return flavor
    flavor = nova.flavors.create(GPU_FLAVOR, ram=512, vcpus=1, disk=1,
                                 flavorid=GPU_FLAVOR)
    flavor.set_keys({'resources:VGPU': '1'})
    return flavor


@contextlib.contextmanager
def gpu_flavor(nova):
    """The vGPUs of every compute and the public GPU_FLAVOR, for a test:
    a flavor made here is deleted at the end (the vGPU providers stay:
    deleted under a running nova-compute they would break its next
    builds)."""
    for host in cloud.COMPUTE_HOSTS:
        add_vgpus(host)
    made = None
    if GPU_FLAVOR not in [f.name for f in nova.flavors.list(is_public=None)]:
        made = add_gpu_flavor(nova)
    try:
        yield nova.flavors.find(name=GPU_FLAVOR)
    finally:
        if made is not None:
            made.delete()


def main():
    print('Loopback cloud (placement + nova, fake computes host1 and '
          'host2): starting it if it is not up; the first time installs '
          'it under %s (about a minute, 700 MB).'
          % cloud_lifecycle.CLOUD_DIR, flush=True)
    info = cloud_lifecycle.ensure_up(
        log=lambda out: print(out, end='', flush=True))
    providers = [add_vgpus(host) for host in cloud.COMPUTE_HOSTS]
    add_gpu_flavor(cloud.nova_client('admin', 'admin', 'admin'))
    print('Loopback cloud ready: nova %s, placement %s; %d vGPUs on each of '
          '%s (providers %s); nova flavor %s asks resources:VGPU=1.' % (
              info['compute'], info['placement'], VGPUS_PER_HOST,
              ', '.join(cloud.COMPUTE_HOSTS), ', '.join(providers),
              GPU_FLAVOR), flush=True)


if __name__ == '__main__':
    try:
        main()
    except cloud.CloudError as exc:
        sys.exit('The loopback cloud did not come up: %s' % exc)

"""The GPU devices of the reserve API."""
from reserveclient import exceptions
from reserveclient.v1 import base

SPOT_VERSION = '1.4'


class DeviceManager(base.Manager):
    """/v1/devices: the GPU devices of the libvirt hosts."""

    path = '/v1/devices'
    key = 'device'
    collection_key = 'devices'
    what = 'device'

    def list(self, limit=None, marker=None, spot=False, **filters):
        """Filters: host (name or ID), model, state, numa_node; spot:
        only the devices on the spot market (API 1.4)."""
        if spot:
            return self.http.list(self.path, self.collection_key,
                                  dict(filters, spot='true'), limit=limit,
                                  marker=marker, version=SPOT_VERSION)
        return self._list(filters, limit=limit, marker=marker)

    def attach_spot(self, device_id, domain):
        """Attach a device on the spot market to a domain of the
        project's (API 1.4): the device."""
        return self.http.post('%s/attach' % self._item_path(device_id),
                              {'domain': domain, 'tier': 'spot'},
                              version=SPOT_VERSION)[self.key]

    def detach_spot(self, device_id, domain):
        """Give a spot device back: detach it from the project's spot
        domain, before any reclaim (API 1.4): the device, on the spot
        market again."""
        return self.http.post('%s/detach' % self._item_path(device_id),
                              {'domain': domain},
                              version=SPOT_VERSION)[self.key]

    def find(self, ref, host=None, version=None):
        """A device by its ID, PCI address (0000:3b:00.0) or node device
        name (pci_0000_3b_00_0), on ``host`` when given; ``version``:
        looked up at that API version (SPOT_VERSION: a device lent out
        shows to every project) instead of the negotiated one."""
        try:
            return self.http.get(self._item_path(ref),
                                 version=version)[self.key]
        except exceptions.NotFound as exc:
            not_found = exc
        # Virtual functions are listed only when asked for.
        listed = self.http.list(self.path, self.collection_key,
                                {'host': host, 'include_vfs': 'true'},
                                version=version)
        matches = [d for d in listed
                   if ref in (d.get('pci_address'), d.get('node_device'))]
        if len(matches) == 1:
            return matches[0]
        if len(matches) > 1:
            raise exceptions.ReserveClientError(
                'More than one GPU device is %s (on hosts %s); give the host '
                'or use the ID.' % (ref, ', '.join(
                    sorted(str(m.get('host')) for m in matches))))
        raise not_found

    def availability(self, start=None, end=None, **filters):
        """{start, end, availability: [{host, model, free, device_ids}]}
        (unit_ids before API 1.2)"""
        return self.http.get('%s/availability' % self.path,
                             dict(filters, start=start, end=end))

"""Which GPU devices a request gets: pure functions, no I/O.

The same code answers a dry run and makes the hold (reserve.devices
.holds feeds it a snapshot of the devices, each with why it cannot be
taken over the asked window, if it cannot). A request names either
specific devices or a count of a model, optionally on one host and on one
NUMA node. A reservation's devices are always on one host (the domains
they are handed to live there), and never two functions that share
hardware (an IOMMU group, an SR-IOV physical function and its virtual
functions): libvirt could not give them to different guests. A count
request naming domains without a host is narrowed to the hosts that
have every one of them (``on_domain_hosts``).
"""
import dataclasses
import re

from reserve.common import exception


@dataclasses.dataclass(frozen=True)
class Device:
    id: str
    host_id: str
    host: str
    pci_address: str
    model: str
    vendor_id: str
    product_id: str
    numa_node: int
    is_vf: bool
    # Addresses of the functions it shares hardware with.
    related: frozenset
    # {mdev type id: available instances}
    mdev_types: dict
    # Why it cannot be taken over the window (None: it can).
    blocked: str = None


@dataclasses.dataclass(frozen=True)
class Request:
    device_ids: tuple = ()
    device_count: int = 0
    model: str = None
    host_id: str = None
    numa_local: bool = False
    mdev_type: str = None
    # A count request's candidate hosts (empty: any) and the domains
    # that narrowed it to them (see on_domain_hosts).
    host_ids: tuple = ()
    domains: tuple = ()


@dataclasses.dataclass(frozen=True)
class Selection:
    host_id: str
    host: str
    devices: tuple

    @property
    def device_ids(self):
        return [u.id for u in self.devices]


def model_name(product_name, vendor_id, product_id):
    """How the API names a GPU model: the product name libvirt reads
    from pci.ids, else 'vendor:product'."""
    if product_name:
        return product_name
    return '%s:%s' % (_bare(vendor_id), _bare(product_id))


def _bare(hex_id):
    text = (hex_id or '').lower()
    return text[2:] if text.startswith('0x') else text


def model_matches(device, text):
    """Whether ``text`` names the device's model: its full product name
    ('GA100 [A100 SXM4 80GB]'), the marketing name in brackets ('A100
    SXM4 80GB'), 'vendor:product' ids ('10de:20b2') or the product id
    ('20b2', '0x20b2'); case does not matter."""
    wanted = text.strip().lower()
    names = {device.model.lower(),
             '%s:%s' % (_bare(device.vendor_id), _bare(device.product_id)),
             _bare(device.product_id), (device.product_id or '').lower()}
    names.update(m.strip().lower()
                 for m in re.findall(r'\[([^\]]+)\]', device.model))
    return wanted in names


def _label(device):
    return '%s on %s' % (device.pci_address, device.host)


def _check_related(devices):
    for i, first in enumerate(devices):
        for second in devices[i + 1:]:
            if (second.host_id == first.host_id and
                    second.pci_address in first.related):
                raise exception.Invalid(
                    reason='devices %s and %s share hardware (IOMMU group or '
                           'SR-IOV functions) and cannot be reserved '
                           'together' % (first.id, second.id))


def _specific(devices, request):
    by_id = {u.id: u for u in devices}
    chosen = []
    for device_id in request.device_ids:
        if device_id not in by_id:
            raise exception.DeviceNotFound(id=device_id)
        chosen.append(by_id[device_id])
    hosts = sorted({u.host for u in chosen})
    if len(hosts) > 1:
        raise exception.Invalid(
            reason='the devices of a reservation must be on one host; these '
                   'are on %s' % ', '.join(hosts))
    if request.host_id and chosen[0].host_id != request.host_id:
        raise exception.Invalid(
            reason='device %s is on host %s, not on the host asked for' %
            (chosen[0].id, chosen[0].host))
    _check_related(chosen)
    if request.numa_local and len({u.numa_node for u in chosen}) > 1:
        raise exception.Invalid(
            reason='numa_local: the devices are on NUMA nodes %s' % ', '.join(
                sorted(str(u.numa_node) for u in chosen)))
    if request.mdev_type:
        for device in chosen:
            if request.mdev_type not in device.mdev_types:
                raise exception.Invalid(
                    reason='device %s (%s) offers no mediated device type %s'
                           ' (it offers: %s)' % (
                               device.id, device.model, request.mdev_type,
                               ', '.join(sorted(device.mdev_types))
                               or 'none'))
    blocked = ['%s: %s' % (_label(u), u.blocked) for u in chosen
               if u.blocked]
    if blocked:
        raise exception.DevicesUnavailable(reason='; '.join(blocked))
    return Selection(chosen[0].host_id, chosen[0].host, tuple(chosen))


def wanted(device, request):
    """Whether a device is of what a count request asks for."""
    if request.host_id and device.host_id != request.host_id:
        return False
    if request.host_ids and device.host_id not in request.host_ids:
        return False
    if request.model and not model_matches(device, request.model):
        return False
    if request.mdev_type and request.mdev_type not in device.mdev_types:
        return False
    return True


def pick_together(devices):
    """As many devices as can go together, whole GPUs before SR-IOV
    virtual functions, in address order."""
    picked, taken = [], set()
    for device in sorted(devices, key=lambda u: (u.is_vf, u.pci_address)):
        if device.pci_address in taken:
            continue
        picked.append(device)
        taken.add(device.pci_address)
        taken.update(device.related)
    return picked


def _describe(request):
    what = '%d device(s)' % request.device_count
    if request.model:
        what += ' of model %r' % request.model
    if request.mdev_type:
        what += ' offering mdev type %s' % request.mdev_type
    if request.numa_local:
        what += ' on one NUMA node'
    return what


def _groups(matching, request):
    """{(host, host_id, NUMA node or None): free devices} of a count
    request: the devices that may go together."""
    groups = {}
    for device in matching:
        if device.blocked:
            continue
        key = (device.host, device.host_id,
               device.numa_node if request.numa_local else None)
        groups.setdefault(key, []).append(device)
    return groups


def most(devices, request):
    """The most devices of what ``request`` asks for that it could get
    among ``devices``: of a count request, the most that go together on
    one host (one NUMA node with numa_local); of named devices, how many
    of them are free."""
    if request.device_ids:
        free = {u.id for u in devices if not u.blocked}
        return len([i for i in request.device_ids if i in free])
    return max([len(pick_together(members)) for members in _groups(
        [u for u in devices if wanted(u, request)], request).values()],
        default=0)


def _counted(devices, request):
    matching = [u for u in devices if wanted(u, request)]
    groups = _groups(matching, request)
    fitting, best = [], 0
    for key, members in groups.items():
        picked = pick_together(members)
        best = max(best, len(picked))
        if len(picked) >= request.device_count:
            fitting.append((len(picked), key, picked))
    if not fitting:
        where = ' on the host asked for' if request.host_id else ''
        if request.domains and not request.host_id:
            where = ' on a host with %s %s' % (
                _plural('domain', request.domains),
                ', '.join(request.domains))
        raise exception.DevicesDoNotFit(
            reason='%s wanted%s; %s' % (
                _describe(request), where,
                'at most %d fit together on one %s' % (
                    best, 'NUMA node' if request.numa_local else 'host')
                if matching else 'no device of the reservable hosts matches'))
    # The tightest fit keeps the larger groups whole for larger requests.
    free, (host, host_id, _node), picked = min(
        fitting, key=lambda item: (item[0], item[1][0],
                                   str(item[1][2])))
    return Selection(host_id, host, tuple(picked[:request.device_count]))


def _plural(word, items):
    return word + ('s' if len(items) > 1 else '')


def hosts_of(devices, request):
    """{host_id: host name} of the hosts with devices of what a count
    request asks for (free or not): those it may be narrowed to."""
    return {u.host_id: u.host for u in devices if wanted(u, request)}


def on_domain_hosts(request, domains, considered, found):
    """A count request without a host, narrowed to the hosts that have
    every domain of ``domains`` (the devices are handed to them, on their
    host). ``considered``: {host_id: name} of the hosts it may use;
    ``found``: {host_id: the names of its domains, or why they could not
    be read}. Raises DomainNotFound naming the domains and the hosts
    considered when none has them all."""
    domains = tuple(dict.fromkeys(domains or ()))
    if not domains or request.device_ids or request.host_id or not considered:
        return request
    having = sorted(h for h in considered
                    if not isinstance(found.get(h), str) and
                    set(domains) <= set(found.get(h) or ()))
    if having:
        return dataclasses.replace(request, host_ids=tuple(having),
                                   domains=domains)
    seen = []
    for host_id in sorted(considered, key=lambda h: (considered[h], h)):
        names = found.get(host_id)
        if isinstance(names, str):
            seen.append('%s (domains unreadable: %s)' % (
                considered[host_id], names))
            continue
        some = [d for d in domains if d in (names or ())]
        seen.append('%s (has %s)' % (considered[host_id], ', '.join(some))
                    if some else considered[host_id])
    raise exception.DomainNotFound(
        message='No host has %s %s; hosts considered (the reservable hosts '
                'with devices of the request): %s.' % (
                    'domain' if len(domains) == 1 else 'all of the domains',
                    ', '.join(domains), ', '.join(seen)))


def select(devices, request):
    """The Selection ``request`` gets among ``devices`` (those the caller
    may see, each with its ``blocked`` reason over the window). Raises
    DeviceNotFound, Invalid, DevicesUnavailable or DevicesDoNotFit."""
    if request.device_ids:
        return _specific(devices, request)
    return _counted(devices, request)

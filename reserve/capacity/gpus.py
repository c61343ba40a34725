"""GPUs asked by a flavor and GPUs of a host: pure functions, no I/O.

Nova hands GPUs to a guest in three ways a flavor can ask for, and reserve
must count each against the hosts' GPUs, or a booking would fence
instances that nova can never boot:

* ``pci_passthrough:alias=<alias>:<n>[,<alias>:<n>...]``: whole devices,
  matched by vendor and product through the operator's ``[pci] alias``.
  With PCI in placement, nova reports them under CUSTOM_PCI_<VENDOR>_<PRODUCT>
  (or the alias's resource_class), so the alias counts against that class;
* ``resources[<group>]:VGPU=<n>``: mediated slices of a GPU;
* ``resources[<group>]:<class>=<n>`` for a PCI class (CUSTOM_PCI_*, PGPU)
  or one the operator configured in ``[gpu] resource_classes``.

A demand is {key: devices per instance}. A key is a resource class, or
several joined by '|' when an alias matches devices of several products
(any of them will do), or 'alias:<name>' for an alias reserve has no
configuration for (seed 001's deployments: hosts then say ``gpu_type``).
A host's GPUs are {key: count}, from the first source that knows them:
placement inventories of its provider tree, the devices libvirt discovered
on it, or its capabilities ``gpu`` / ``gpu_count`` / ``gpu_type`` (the
aggregate metadata of such deployments). A host no source knows has no
GPUs.

Counting is conservative where keys overlap: a use of key U takes from
every key sharing a class with U, so what is left is never overstated.
"""
import json
import re

from reserve.common import exception
from reserve.common import states

ALIAS_SPEC = 'pci_passthrough:alias'
ALIAS_KEY_PREFIX = 'alias:'
PCI_CLASS_PREFIX = 'CUSTOM_PCI_'
# Standard placement classes that are GPUs.
STANDARD_CLASSES = ('VGPU', 'PGPU')
# resources:<RC>, resources1:<RC>, resources_gpu:<RC> (granular groups).
_RESOURCES_SPEC = re.compile(r'^resources([1-9][0-9]*|_[A-Za-z0-9_-]+)?:'
                             r'(?P<rc>[A-Z0-9_]+)$')
_HEX4 = re.compile(r'^[0-9a-fA-F]{4}$')
_TRUE = ('1', 'true', 'yes', 'on', 't', 'y')


def pci_class(vendor_id, product_id):
    """The class nova reports a PCI device under by default."""
    return ('%s%s_%s' % (PCI_CLASS_PREFIX, vendor_id, product_id)).upper()


def normalize_class(name):
    """An operator-given class name as placement spells it."""
    name = re.sub(r'[^A-Z0-9_]', '_', name.strip().upper())
    if name in STANDARD_CLASSES or name.startswith('CUSTOM_'):
        return name
    return 'CUSTOM_' + name


def is_gpu_class(resource_class, extra_classes=()):
    return (resource_class in STANDARD_CLASSES or
            resource_class.startswith(PCI_CLASS_PREFIX) or
            resource_class in extra_classes)


def parse_aliases(lines):
    """``[pci] alias`` lines → {alias name: sorted classes}.

    Entries with the same name add up (nova matches any of them).
    Raises Invalid naming the bad line.
    """
    aliases = {}
    for line in lines or ():
        try:
            entry = json.loads(line)
        except ValueError:
            raise exception.Invalid(
                reason='[pci] alias is not JSON: %r' % line)
        if not isinstance(entry, dict) or not entry.get('name'):
            raise exception.Invalid(
                reason='[pci] alias needs a "name": %r' % line)
        if entry.get('resource_class'):
            rc = normalize_class(entry['resource_class'])
        else:
            vendor, product = entry.get('vendor_id'), entry.get('product_id')
            if not (_HEX4.match(str(vendor or '')) and
                    _HEX4.match(str(product or ''))):
                raise exception.Invalid(
                    reason='[pci] alias %s needs a 4-digit hexadecimal '
                           'vendor_id and product_id, or a resource_class: '
                           '%r' % (entry['name'], line))
            rc = pci_class(vendor, product)
        classes = aliases.setdefault(entry['name'], [])
        if rc not in classes:
            classes.append(rc)
            classes.sort()
    return aliases


def alias_key(name, aliases):
    """The demand key of a PCI alias."""
    if name in aliases:
        return '|'.join(aliases[name])
    return ALIAS_KEY_PREFIX + name


def _classes(key):
    return frozenset(key.split('|'))


def _positive_int(value, spec):
    try:
        number = int(str(value).strip())
    except ValueError:
        raise exception.Invalid(
            reason='flavor extra spec %s: %r is not a count' % (spec, value))
    if number < 0:
        raise exception.Invalid(
            reason='flavor extra spec %s: %r is negative' % (spec, value))
    return number


def demand(extra_specs, aliases=None, extra_classes=()):
    """The GPUs one instance of a flavor with ``extra_specs`` needs:
    {key: count}, empty for a flavor without GPUs."""
    aliases = aliases or {}
    wanted = {}

    def add(key, count):
        if count:
            wanted[key] = wanted.get(key, 0) + count

    for spec, value in (extra_specs or {}).items():
        if spec == ALIAS_SPEC:
            for item in str(value).split(','):
                if not item.strip():
                    continue
                name, _, count = item.strip().partition(':')
                add(alias_key(name.strip(), aliases),
                    _positive_int(count or '1', spec))
            continue
        match = _RESOURCES_SPEC.match(spec)
        if match and is_gpu_class(match.group('rc'), extra_classes):
            add(match.group('rc'), _positive_int(value, spec))
    return wanted


# A host's GPUs ------------------------------------------------------------

def from_inventories(inventories, extra_classes=()):
    """GPUs in placement inventories ({class: record}, or a list of them,
    one per provider of the host's tree): what can be allocated."""
    if isinstance(inventories, dict):
        inventories = [inventories]
    gpus = {}
    for provider in inventories:
        for rc, inv in provider.items():
            if not is_gpu_class(rc, extra_classes):
                continue
            usable = int((inv['total'] - inv.get('reserved', 0)) *
                         inv.get('allocation_ratio', 1.0))
            gpus[rc] = gpus.get(rc, 0) + max(usable, 0)
    return gpus


def from_devices(devices):
    """GPUs libvirt discovered: each present device under its PCI class,
    and the vGPUs its mdev types can still make plus those made."""
    gpus = {}
    for device in devices:
        if device.get('state', states.Device.PRESENT) != \
                states.Device.PRESENT:
            continue
        if device.get('vendor_id') and device.get('product_id'):
            rc = pci_class(device['vendor_id'].replace('0x', ''),
                           device['product_id'].replace('0x', ''))
            gpus[rc] = gpus.get(rc, 0) + 1
        slices = max([t.get('available_instances') or 0
                      for t in device.get('mdev_types') or ()] or [0])
        slices += len(device.get('mdevs') or ())
        if slices:
            gpus['VGPU'] = gpus.get('VGPU', 0) + slices
    return gpus


def from_capabilities(capabilities, aliases=None):
    """GPUs a host's capabilities declare: gpu (true/false), gpu_count
    and gpu_type, the alias name (or a resource class) of its GPUs."""
    aliases = aliases or {}
    caps = {k.lower(): v for k, v in (capabilities or {}).items()}
    if 'gpu_count' not in caps:
        return {}
    if 'gpu' in caps and str(caps['gpu']).strip().lower() not in _TRUE:
        return {}
    try:
        count = int(str(caps['gpu_count']).strip())
    except ValueError:
        return {}
    gpu_type = str(caps.get('gpu_type') or '').strip()
    if not gpu_type or count <= 0:
        return {}
    if gpu_type in aliases:
        return {alias_key(gpu_type, aliases): count}
    if gpu_type.upper() in STANDARD_CLASSES or gpu_type.startswith(
            PCI_CLASS_PREFIX):
        return {gpu_type.upper(): count}
    return {ALIAS_KEY_PREFIX + gpu_type: count}


def host_gpus(inventory_gpus, device_gpus, capability_gpus):
    """(gpus, source): the first source that knows the host's GPUs."""
    for gpus, source in ((inventory_gpus, 'placement'),
                         (device_gpus, 'libvirt'),
                         (capability_gpus, 'capabilities')):
        if gpus:
            return dict(gpus), source
    return {}, None


# Fitting ------------------------------------------------------------------

def serving(gpus, key):
    """What a host with ``gpus`` has of ``key``: every capacity whose
    classes all serve it."""
    wanted = _classes(key)
    return sum(n for k, n in gpus.items() if _classes(k) <= wanted)


def taking(used, key):
    """What ``used`` ({key: count}) may have taken from the capacity
    serving ``key``: every use sharing a class with it."""
    wanted = _classes(key)
    return sum(n for k, n in used.items() if _classes(k) & wanted)


def free(gpus, used, key):
    """What is left of ``key`` on a host with ``gpus`` once ``used``
    ({key: count}) is taken."""
    return serving(gpus, key) - taking(used, key)


def fit(gpus, used, need):
    """How many more instances needing ``need`` fit; None when ``need``
    asks for no GPU."""
    counts = [max(free(gpus, used, key), 0) // count
              for key, count in need.items() if count]
    return min(counts) if counts else None


def describe(need):
    """'2 x VGPU, 1 x alias:a100', for messages."""
    return ', '.join('%d x %s' % (n, k) for k, n in sorted(need.items()))


def configured_demand(extra_specs, conf):
    """demand() with the aliases and classes of ``conf`` ([pci] alias,
    [gpu] resource_classes). The aliases are parsed only for a flavor
    naming one, so a bad alias line fails the GPU flavors it concerns,
    not every booking; with [gpu] source = aggregates, not at all."""
    aliases = {}
    # With [gpu] source = aggregates an alias is the gpu_type of the
    # hosts' aggregates (key alias:<name>), not a [pci] alias.
    if ALIAS_SPEC in (extra_specs or {}) and conf.gpu.source != 'aggregates':
        aliases = parse_aliases(conf.pci.alias)
    return demand(extra_specs, aliases, configured_classes(conf))


def configured_classes(conf):
    return tuple(normalize_class(rc) for rc in conf.gpu.resource_classes
                 if rc.strip())

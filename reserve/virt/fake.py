"""libvirt's test driver, completed with the two things it cannot do.

For tests and the quick start only. libvirt's ``test:///<file>.xml``
driver lists node devices and takes domain definitions holding hostdevs,
but (libvirt 9.0):

* ``nodeDeviceCreateXML`` of an mdev fails ("Device is not a fibre
  channel HBA"), and ``virNodeDevice.destroy`` answers success without
  removing anything;
* ``attachDeviceFlags`` / ``detachDeviceFlags`` answer VIR_ERR_NO_SUPPORT.

``FakeConnect`` wraps a test-driver connection and answers exactly these
calls (plus the listings and lookups that must show their effects) the
way a real host does: the node device driver driving mdevctl for mdevs,
the QEMU driver for hot-plug. Errors are libvirtError with the code,
error domain and message a real host gives:

========================================  ==============================
case                                      libvirtError (code: message)
========================================  ==============================
mdev type with no available instances     INTERNAL_ERROR: internal error:
                                          Unable to start mediated device:
                                          Error: No available instances of
                                          <type> on <parent address>
UUID of an existing mdev                  INTERNAL_ERROR: ... Error: Device
                                          already exists (or "exists under
                                          different parent", "exists with
                                          different type")
type the parent does not offer            ... Error: Parent <addr> does not
                                          support mdev type <type>
parent without mdev support               ... Error: Parent <addr> is not
                                          currently registered for mdev
                                          support
unknown parent                            INTERNAL_ERROR: internal error:
                                          unable to find parent device '<n>'
no <parent>                               XML_ERROR: XML error: cannot
                                          create a mediated device without
                                          a parent
no type id                                CONFIG_UNSUPPORTED: unsupported
                                          configuration: missing type id
                                          attribute for 'new device'
malformed UUID                            INTERNAL_ERROR: internal error:
                                          Invalid uuid '<text>' for new
                                          mdev device
destroy of an mdev a running guest holds  INTERNAL_ERROR: internal error:
                                          Unable to destroy '<name>':
                                          device in use
lookup / destroy of a removed mdev        NO_NODE_DEVICE: Node device not
                                          found: no node device with
                                          matching name '<name>'
LIVE on a shut-off domain                 OPERATION_INVALID: Requested
                                          operation is not valid: domain is
                                          not running
CONFIG on a transient domain              OPERATION_INVALID: ... transient
                                          domains do not have any
                                          persistent config
attach, already in the definition         INVALID_ARG: invalid argument:
                                          device is already in the domain
                                          configuration
live attach of a PCI device a running     OPERATION_INVALID: ... PCI device
guest holds                               <addr> is in use by driver QEMU,
                                          domain <name>
live attach of an mdev a running guest    OPERATION_INVALID: ... mediated
holds                                     device /sys/bus/mdev/devices/<uuid>
                                          is in use by driver QEMU, domain
                                          <name>
live attach of a missing mdev             DEVICE_MISSING: device not found:
                                          mediated device '<uuid>' not found
detach, not in the definition             DEVICE_MISSING: device not found:
                                          device not present in domain
                                          configuration
live detach, not in the running guest     DEVICE_MISSING: device not found:
                                          host pci device <addr> not found
                                          (mediated device '<uuid>' not
                                          found)
========================================  ==============================

Simplifications, each invisible to reserve: a new mdev lowers the
available instances of its own type only (NVIDIA hosts may also zero the
other types of the card); a live detach completes at once (QEMU waits for
the guest to let go); hot-plug handles ``<hostdev>`` elements only (other
devices get the test driver's own "not supported") and does not look for
the PCI address in sysfs (reserve checks the node devices first). Live
changes last until the domain is next started, as on a real host. State
lives in the FakeConnect, as the test driver's lives in its connection.

``opener(hotplug=False)`` leaves hot-plug to the test driver ("not
supported"), to exercise the fallback that edits the definition.
"""
import collections
import os
import sys
import sysconfig
import threading
import uuid as uuid_lib
from xml.etree import ElementTree as ET

import libvirt

from reserve.virt import discovery
from reserve.virt import hostdev
from reserve.virt import mdev as mdev_xml

_LIVE = libvirt.VIR_DOMAIN_AFFECT_LIVE
_CONFIG = libvirt.VIR_DOMAIN_AFFECT_CONFIG
_INACTIVE_XML = libvirt.VIR_DOMAIN_XML_INACTIVE | libvirt.VIR_DOMAIN_XML_SECURE
_CAP_MDEV = libvirt.VIR_CONNECT_LIST_NODE_DEVICES_CAP_MDEV

# libvirt's wording for each error code (virerror.c).
_WORDING = {
    libvirt.VIR_ERR_INTERNAL_ERROR: 'internal error: %s',
    libvirt.VIR_ERR_NO_NODE_DEVICE: 'Node device not found: %s',
    libvirt.VIR_ERR_XML_ERROR: 'XML error: %s',
    libvirt.VIR_ERR_OPERATION_INVALID: 'Requested operation is not valid: %s',
    libvirt.VIR_ERR_INVALID_ARG: 'invalid argument: %s',
    libvirt.VIR_ERR_DEVICE_MISSING: 'device not found: %s',
    libvirt.VIR_ERR_CONFIG_UNSUPPORTED: 'unsupported configuration: %s',
}


def libvirt_error(code, domain, detail):
    """A libvirtError as libvirt raises it for ``code`` in ``domain``."""
    message = _WORDING[code] % detail
    error = libvirt.libvirtError.__new__(libvirt.libvirtError)
    Exception.__init__(error, message)
    error.err = (code, domain, message, libvirt.VIR_ERR_ERROR, detail, None,
                 None, 0, 0)
    return error


def _mdevctl_error(detail):
    return libvirt_error(libvirt.VIR_ERR_INTERNAL_ERROR,
                         libvirt.VIR_FROM_NODEDEV,
                         'Unable to start mediated device: Error: %s' % detail)


def _no_node_device(name):
    return libvirt_error(libvirt.VIR_ERR_NO_NODE_DEVICE,
                         libvirt.VIR_FROM_NODEDEV,
                         "no node device with matching name '%s'" % name)


def host_uri(path):
    """``test:///<absolute path>`` for a host definition file."""
    return 'test://' + os.path.abspath(path)


def _definition_dirs():
    here = os.path.dirname(os.path.abspath(__file__))
    # A source checkout or an editable install.
    yield os.path.join(here, os.pardir, os.pardir, 'etc', 'reserve',
                       'gpu-hosts')
    # Installed with the package's data files.
    for prefix in (sys.prefix, sysconfig.get_path('data'),
                   sys.base_prefix, '/usr/local', '/usr', '/'):
        yield os.path.join(prefix, 'etc', 'reserve', 'gpu-hosts')


def host_definition(name):
    """The path of a GPU host definition of etc/reserve/gpu-hosts
    ('a100-host.xml', 't4-host.xml', 'rtx-workstation.xml')."""
    for directory in _definition_dirs():
        path = os.path.join(directory, name)
        if os.path.isfile(path):
            return os.path.normpath(path)
    raise FileNotFoundError('GPU host definition %s not found; looked in: '
                            '%s' % (name, ', '.join(
                                os.path.normpath(d)
                                for d in _definition_dirs())))


def opener(hotplug=True):
    """An ``opener`` for HostConnection: opens the test driver and wraps
    it in a FakeConnect."""
    def open_uri(uri):
        return FakeConnect(libvirt.open(uri), hotplug=hotplug)
    return open_uri


class FakeConnect:
    """A test-driver connection that also starts and stops mdevs and
    hot-plugs hostdevs; every other call goes to the test driver."""

    def __init__(self, conn, hotplug=True):
        self._conn = conn
        self.hotplug = hotplug
        self._lock = threading.RLock()
        self._started = {}   # name -> Mdev started through this connection
        self._stopped = {}   # name -> Mdev of the definition file, stopped
        self._live = {}      # domain UUID -> _LiveChanges

    def __getattr__(self, name):
        return getattr(self._conn, name)

    # node devices ------------------------------------------------------

    def listAllDevices(self, flags=0):
        with self._lock:
            found = [self._wrap(dev) for dev in
                     self._conn.listAllDevices(flags)
                     if dev.name() not in self._stopped]
            if not flags or flags & _CAP_MDEV:
                found += [_StartedMdev(self, name) for name in self._started]
            return found

    def nodeDeviceLookupByName(self, name):
        with self._lock:
            if name in self._started:
                return _StartedMdev(self, name)
            if name in self._stopped:
                raise _no_node_device(name)
            return self._wrap(self._conn.nodeDeviceLookupByName(name))

    def nodeDeviceCreateXML(self, xml, flags=0):
        with self._lock:
            device = ET.fromstring(xml)
            cap = device.find("capability[@type='mdev']")
            if cap is None:     # vHBAs: the test driver's own business
                return self._conn.nodeDeviceCreateXML(xml, flags)
            # What libvirt's parser checks, then its mdev creation.
            type_element = cap.find('type')
            type_id = (type_element.get('id')
                       if type_element is not None else None)
            if not type_id:
                raise libvirt_error(
                    libvirt.VIR_ERR_CONFIG_UNSUPPORTED,
                    libvirt.VIR_FROM_NODEDEV,
                    "missing type id attribute for 'new device'")
            uuid = cap.findtext('uuid') or str(uuid_lib.uuid4())
            try:
                uuid = str(uuid_lib.UUID(uuid))
            except ValueError:
                raise libvirt_error(
                    libvirt.VIR_ERR_INTERNAL_ERROR, libvirt.VIR_FROM_NODEDEV,
                    "Invalid uuid '%s' for new mdev device" % uuid)
            parent = device.findtext('parent')
            if not parent:
                raise libvirt_error(
                    libvirt.VIR_ERR_XML_ERROR, libvirt.VIR_FROM_NODEDEV,
                    'cannot create a mediated device without a parent')
            gpu = self._parent(parent)
            # From here on, what mdevctl checks before writing to sysfs.
            for existing in self._active_mdevs():
                if existing.uuid == uuid:
                    if existing.parent_address != gpu.address:
                        raise _mdevctl_error(
                            'Device exists under different parent')
                    if existing.type_id != type_id:
                        raise _mdevctl_error('Device exists with different '
                                             'type')
                    raise _mdevctl_error('Device already exists')
            if not gpu.mdev_types:
                raise _mdevctl_error('Parent %s is not currently registered '
                                     'for mdev support' % gpu.address)
            offered = gpu.mdev_type(type_id)
            if offered is None:
                raise _mdevctl_error('Parent %s does not support mdev type '
                                     '%s' % (gpu.address, type_id))
            if offered.available_instances < 1:
                raise _mdevctl_error('No available instances of %s on %s'
                                     % (type_id, gpu.address))
            name = mdev_xml.node_device_name(uuid, gpu.address)
            groups = [m.iommu_group for m in self._active_mdevs()
                      if m.iommu_group is not None]
            self._started[name] = discovery.Mdev(
                name=name, uuid=uuid, type_id=type_id, parent=gpu.name,
                parent_address=gpu.address,
                iommu_group=max(groups + [200]) + 1)
            return _StartedMdev(self, name)

    def _wrap(self, dev):
        caps = dev.listCaps()
        if 'mdev' in caps:
            return _DefinedMdev(self, dev)
        if 'pci' in caps:
            return _PciDevice(self, dev)
        return dev

    def _parent(self, name):
        try:
            dev = self.nodeDeviceLookupByName(name)
        except libvirt.libvirtError:
            dev = None
        if dev is None or 'pci' not in dev.listCaps():
            raise libvirt_error(libvirt.VIR_ERR_INTERNAL_ERROR,
                                libvirt.VIR_FROM_NODEDEV,
                                "unable to find parent device '%s'" % name)
        return discovery.parse_pci_device(dev.XMLDesc(0))

    def _active_mdevs(self):
        defined = [discovery.parse_mdev(dev.XMLDesc(0)) for dev in
                   self._conn.listAllDevices(_CAP_MDEV)
                   if dev.name() not in self._stopped]
        return defined + list(self._started.values())

    def _in_use(self, kind, device_id):
        """The running domain whose guest holds the device, or None."""
        for dom in self._conn.listAllDomains(
                libvirt.VIR_CONNECT_LIST_DOMAINS_ACTIVE):
            live = _Domain(self, dom).XMLDesc(0)
            if (kind, device_id) in {h.key for h in
                                     hostdev.parse_hostdevs(live)}:
                return dom.name()
        return None

    def _taken(self, parent, type_id):
        """Instances of a type taken (or given back) through this fake."""
        started = sum(1 for m in self._started.values()
                      if (m.parent, m.type_id) == (parent, type_id))
        stopped = sum(1 for m in self._stopped.values()
                      if (m.parent, m.type_id) == (parent, type_id))
        return started - stopped

    def _stop(self, name):
        with self._lock:
            found = self._started.get(name)
            if found is None and name not in self._stopped:
                try:
                    found = discovery.parse_mdev(
                        self._conn.nodeDeviceLookupByName(name).XMLDesc(0))
                except libvirt.libvirtError:
                    found = None
            if found is None:
                raise _no_node_device(name)
            # A running guest holds the vfio group open: mdevctl would hang.
            if self._in_use(hostdev.MDEV, found.uuid):
                raise libvirt_error(libvirt.VIR_ERR_INTERNAL_ERROR,
                                    libvirt.VIR_FROM_NODEDEV,
                                    "Unable to destroy '%s': device in use"
                                    % name)
            if self._started.pop(name, None) is None:
                self._stopped[name] = found
            return 0

    # domains -------------------------------------------------------------

    def lookupByName(self, name):
        return _Domain(self, self._conn.lookupByName(name))

    def lookupByUUIDString(self, uuid):
        return _Domain(self, self._conn.lookupByUUIDString(uuid))

    def listAllDomains(self, flags=0):
        return [_Domain(self, dom) for dom in
                self._conn.listAllDomains(flags)]

    def defineXML(self, xml):
        return _Domain(self, self._conn.defineXML(xml))

    def createXML(self, xml, flags=0):
        return _Domain(self, self._conn.createXML(xml, flags))

    def _live_changes(self, dom):
        """The hot-plug changes of the guest now running (a guest started
        again is built from its definition: older changes are gone)."""
        changes = self._live.get(dom.UUIDString())
        if changes is not None and changes.domain_id != dom.ID():
            del self._live[dom.UUIDString()]
            changes = None
        return changes

    def _hotplug(self, dom, xml, flags, attach):
        call = dom.attachDeviceFlags if attach else dom.detachDeviceFlags
        element = ET.fromstring(xml)
        key = hostdev.hostdev_key(element) if element.tag == 'hostdev' \
            else None
        if not self.hotplug or key is None:
            return call(xml, flags)     # the test driver: "not supported"
        with self._lock:
            return self._hotplug_hostdev(dom, key, flags, attach)

    def _hotplug_hostdev(self, dom, key, flags, attach):
        kind, device_id = key
        active, persistent = dom.isActive(), dom.isPersistent()
        if not flags & (_LIVE | _CONFIG):
            flags |= _LIVE if active else _CONFIG
        if flags & _LIVE and not active:
            raise libvirt_error(libvirt.VIR_ERR_OPERATION_INVALID,
                                libvirt.VIR_FROM_DOMAIN,
                                'domain is not running')
        if flags & _CONFIG and not persistent:
            raise libvirt_error(libvirt.VIR_ERR_OPERATION_INVALID,
                                libvirt.VIR_FROM_DOMAIN,
                                'transient domains do not have any '
                                'persistent config')
        config_xml = dom.XMLDesc(_INACTIVE_XML) if flags & _CONFIG else None
        in_config = config_xml is not None and key in {
            h.key for h in hostdev.parse_hostdevs(config_xml)}
        in_live = flags & _LIVE and key in {
            h.key for h in hostdev.parse_hostdevs(
                _Domain(self, dom).XMLDesc(0))}
        if attach:
            if flags & _CONFIG and in_config:
                raise libvirt_error(libvirt.VIR_ERR_INVALID_ARG,
                                    libvirt.VIR_FROM_QEMU,
                                    'device is already in the domain '
                                    'configuration')
            if flags & _LIVE:
                self._check_live_attach(kind, device_id)
        else:
            if flags & _CONFIG and not in_config:
                raise libvirt_error(libvirt.VIR_ERR_DEVICE_MISSING,
                                    libvirt.VIR_FROM_QEMU,
                                    'device not present in domain '
                                    'configuration')
            if flags & _LIVE and not in_live:
                raise libvirt_error(
                    libvirt.VIR_ERR_DEVICE_MISSING, libvirt.VIR_FROM_QEMU,
                    'host pci device %s not found' % device_id
                    if kind == hostdev.PCI
                    else "mediated device '%s' not found" % device_id)
        if flags & _LIVE:
            changes = self._live_changes(dom) or self._live.setdefault(
                dom.UUIDString(), _LiveChanges(dom.ID()))
            changes.record(key, attach)
        if flags & _CONFIG:
            edit = hostdev.add_hostdev if attach else hostdev.remove_hostdev
            self._conn.defineXML(edit(config_xml, kind, device_id))
        return 0

    def _check_live_attach(self, kind, device_id):
        holder = self._in_use(kind, device_id)
        if holder and kind == hostdev.PCI:
            raise libvirt_error(libvirt.VIR_ERR_OPERATION_INVALID,
                                libvirt.VIR_FROM_NONE,
                                'PCI device %s is in use by driver QEMU, '
                                'domain %s' % (device_id, holder))
        if kind == hostdev.MDEV:
            if not any(m.uuid == device_id for m in self._active_mdevs()):
                raise libvirt_error(libvirt.VIR_ERR_DEVICE_MISSING,
                                    libvirt.VIR_FROM_NONE,
                                    "mediated device '%s' not found"
                                    % device_id)
            if holder:
                raise libvirt_error(
                    libvirt.VIR_ERR_OPERATION_INVALID, libvirt.VIR_FROM_NONE,
                    'mediated device /sys/bus/mdev/devices/%s is in use by '
                    'driver QEMU, domain %s' % (device_id, holder))


class _LiveChanges:
    """Hostdevs plugged into (or pulled from) one run of a guest."""

    def __init__(self, domain_id):
        self.domain_id = domain_id
        self.changes = collections.OrderedDict()   # key -> True (added)

    def record(self, key, added):
        self.changes[key] = added

    def apply(self, xml):
        for (kind, device_id), added in self.changes.items():
            edit = hostdev.add_hostdev if added else hostdev.remove_hostdev
            xml = edit(xml, kind, device_id)
        return xml


class _Domain:
    def __init__(self, host, dom):
        self._host = host
        self._dom = dom

    def __getattr__(self, name):
        return getattr(self._dom, name)

    def XMLDesc(self, flags=0):
        xml = self._dom.XMLDesc(flags)
        if flags & libvirt.VIR_DOMAIN_XML_INACTIVE or not self._dom.isActive():
            return xml
        with self._host._lock:
            changes = self._host._live_changes(self._dom)
        return changes.apply(xml) if changes else xml

    def attachDeviceFlags(self, xml, flags=0):
        return self._host._hotplug(self._dom, xml, flags, attach=True)

    def detachDeviceFlags(self, xml, flags=0):
        return self._host._hotplug(self._dom, xml, flags, attach=False)

    def attachDevice(self, xml):
        return self.attachDeviceFlags(xml, _LIVE)

    def detachDevice(self, xml):
        return self.detachDeviceFlags(xml, _LIVE)


class _PciDevice:
    """A PCI node device whose mdev types count this fake's mdevs."""

    def __init__(self, host, dev):
        self._host = host
        self._dev = dev

    def __getattr__(self, name):
        return getattr(self._dev, name)

    def XMLDesc(self, flags=0):
        xml = self._dev.XMLDesc(flags)
        with self._host._lock:
            if not (self._host._started or self._host._stopped):
                return xml
            root = hostdev.parse_xml(xml)
            for element in root.findall(
                    "capability/capability[@type='mdev_types']/type"):
                count = element.find('availableInstances')
                if count is None:
                    continue
                taken = self._host._taken(self._dev.name(), element.get('id'))
                count.text = str(max(0, int(count.text) - taken))
            return ET.tostring(root, encoding='unicode')


class _DefinedMdev:
    """An mdev of the host definition file: destroy really removes it."""

    def __init__(self, host, dev):
        self._host = host
        self._dev = dev

    def __getattr__(self, name):
        return getattr(self._dev, name)

    def destroy(self):
        return self._host._stop(self._dev.name())


class _StartedMdev:
    """An mdev started through the fake, as its node device."""

    def __init__(self, host, name):
        self._host = host
        self._name = name

    def _mdev(self):
        found = self._host._started.get(self._name)
        if found is None:
            raise _no_node_device(self._name)
        return found

    def name(self):
        return self._name

    def parent(self):
        return self._mdev().parent

    def listCaps(self):
        self._mdev()
        return ['mdev']

    def numOfCaps(self):
        return len(self.listCaps())

    def XMLDesc(self, flags=0):
        found = self._mdev()
        device = ET.Element('device')
        ET.SubElement(device, 'name').text = found.name
        ET.SubElement(device, 'path').text = '/sys/bus/mdev/devices/%s' % (
            found.uuid)
        ET.SubElement(device, 'parent').text = found.parent
        ET.SubElement(ET.SubElement(device, 'driver'), 'name').text = \
            'vfio_mdev'
        cap = ET.SubElement(device, 'capability', type='mdev')
        ET.SubElement(cap, 'type', id=found.type_id)
        ET.SubElement(cap, 'uuid').text = found.uuid
        ET.SubElement(cap, 'parent_addr').text = found.parent_address
        ET.SubElement(cap, 'iommuGroup', number=str(found.iommu_group))
        ET.indent(device)
        return ET.tostring(device, encoding='unicode') + '\n'

    def destroy(self):
        return self._host._stop(self._name)

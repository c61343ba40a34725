"""The node devices of a completed test:/// host: mdevs that start and stop.

For reserve_fakes.libvirt_host. libvirt's test driver (9.0) lists the
node devices of its definition file, but ``nodeDeviceCreateXML`` of an
mdev fails ("Device is not a fibre channel HBA") and
``virNodeDevice.destroy`` answers success without removing anything.
``NodeDevices`` answers these the way a real host's node device driver
does, driving mdevctl, with the errors it gives:

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
========================================  ==============================

A simplification, invisible to reserve: a new mdev lowers the available
instances of its own type only (NVIDIA hosts may also zero the other
types of the card).
"""
import uuid as uuid_lib
from xml.etree import ElementTree as ET

import libvirt

from reserve.virt import discovery
from reserve.virt import hostdev
from reserve.virt import mdev as mdev_xml
from reserve_fakes import libvirt_errors

_CAP_MDEV = libvirt.VIR_CONNECT_LIST_NODE_DEVICES_CAP_MDEV


class NodeDevices:
    """The node devices of one test-driver connection: those of its
    definition file, less the mdevs destroyed, plus the mdevs started.

    ``lock`` is the FakeConnect's; ``in_use(kind, id)`` names the running
    domain whose guest holds a device, or None.
    """

    def __init__(self, conn, lock, in_use):
        self._conn = conn
        self._lock = lock
        self._in_use = in_use
        self._started = {}   # name -> Mdev started through this connection
        self._stopped = {}   # name -> Mdev of the definition file, stopped

    def list_all(self, flags=0):
        """``listAllDevices``."""
        with self._lock:
            found = [self._wrap(dev) for dev in
                     self._conn.listAllDevices(flags)
                     if dev.name() not in self._stopped]
            if not flags or flags & _CAP_MDEV:
                found += [_StartedMdev(self, name) for name in self._started]
            return found

    def lookup(self, name):
        """``nodeDeviceLookupByName``."""
        with self._lock:
            if name in self._started:
                return _StartedMdev(self, name)
            if name in self._stopped:
                raise libvirt_errors.no_node_device(name)
            return self._wrap(self._conn.nodeDeviceLookupByName(name))

    def create_xml(self, xml, flags=0):
        """``nodeDeviceCreateXML``: an mdev is started here."""
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
                raise libvirt_errors.libvirt_error(
                    libvirt.VIR_ERR_CONFIG_UNSUPPORTED,
                    libvirt.VIR_FROM_NODEDEV,
                    "missing type id attribute for 'new device'")
            uuid = cap.findtext('uuid') or str(uuid_lib.uuid4())
            try:
                uuid = str(uuid_lib.UUID(uuid))
            except ValueError:
                raise libvirt_errors.libvirt_error(
                    libvirt.VIR_ERR_INTERNAL_ERROR, libvirt.VIR_FROM_NODEDEV,
                    "Invalid uuid '%s' for new mdev device" % uuid)
            parent = device.findtext('parent')
            if not parent:
                raise libvirt_errors.libvirt_error(
                    libvirt.VIR_ERR_XML_ERROR, libvirt.VIR_FROM_NODEDEV,
                    'cannot create a mediated device without a parent')
            gpu = self._parent(parent)
            # From here on, what mdevctl checks before writing to sysfs.
            for existing in self.active_mdevs():
                if existing.uuid == uuid:
                    if existing.parent_address != gpu.address:
                        raise libvirt_errors.mdevctl_error(
                            'Device exists under different parent')
                    if existing.type_id != type_id:
                        raise libvirt_errors.mdevctl_error(
                            'Device exists with different type')
                    raise libvirt_errors.mdevctl_error('Device already exists')
            if not gpu.mdev_types:
                raise libvirt_errors.mdevctl_error(
                    'Parent %s is not currently registered for mdev '
                    'support' % gpu.address)
            offered = gpu.mdev_type(type_id)
            if offered is None:
                raise libvirt_errors.mdevctl_error(
                    'Parent %s does not support mdev type %s'
                    % (gpu.address, type_id))
            if offered.available_instances < 1:
                raise libvirt_errors.mdevctl_error(
                    'No available instances of %s on %s'
                    % (type_id, gpu.address))
            name = mdev_xml.node_device_name(uuid, gpu.address)
            groups = [m.iommu_group for m in self.active_mdevs()
                      if m.iommu_group is not None]
            self._started[name] = discovery.Mdev(
                name=name, uuid=uuid, type_id=type_id, parent=gpu.name,
                parent_address=gpu.address,
                iommu_group=max(groups + [200]) + 1)
            return _StartedMdev(self, name)

    def active_mdevs(self):
        """The Mdevs that exist now, of the definition file or started."""
        defined = [discovery.parse_mdev(dev.XMLDesc(0)) for dev in
                   self._conn.listAllDevices(_CAP_MDEV)
                   if dev.name() not in self._stopped]
        return defined + list(self._started.values())

    def _wrap(self, dev):
        caps = dev.listCaps()
        if 'mdev' in caps:
            return _DefinedMdev(self, dev)
        if 'pci' in caps:
            return _PciDevice(self, dev)
        return dev

    def _parent(self, name):
        try:
            dev = self.lookup(name)
        except libvirt.libvirtError:
            dev = None
        if dev is None or 'pci' not in dev.listCaps():
            raise libvirt_errors.libvirt_error(
                libvirt.VIR_ERR_INTERNAL_ERROR, libvirt.VIR_FROM_NODEDEV,
                "unable to find parent device '%s'" % name)
        return discovery.parse_pci_device(dev.XMLDesc(0))

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
                raise libvirt_errors.no_node_device(name)
            # A running guest holds the vfio group open: mdevctl would hang.
            if self._in_use(hostdev.MDEV, found.uuid):
                raise libvirt_errors.libvirt_error(
                    libvirt.VIR_ERR_INTERNAL_ERROR, libvirt.VIR_FROM_NODEDEV,
                    "Unable to destroy '%s': device in use" % name)
            if self._started.pop(name, None) is None:
                self._stopped[name] = found
            return 0


class _PciDevice:
    """A PCI node device whose mdev types count this fake's mdevs."""

    def __init__(self, devices, dev):
        self._devices = devices
        self._dev = dev

    def __getattr__(self, name):
        return getattr(self._dev, name)

    def XMLDesc(self, flags=0):
        xml = self._dev.XMLDesc(flags)
        with self._devices._lock:
            if not (self._devices._started or self._devices._stopped):
                return xml
            root = hostdev.parse_xml(xml)
            for element in root.findall(
                    "capability/capability[@type='mdev_types']/type"):
                count = element.find('availableInstances')
                if count is None:
                    continue
                taken = self._devices._taken(self._dev.name(),
                                             element.get('id'))
                count.text = str(max(0, int(count.text) - taken))
            return ET.tostring(root, encoding='unicode')


class _DefinedMdev:
    """An mdev of the host definition file: destroy really removes it."""

    def __init__(self, devices, dev):
        self._devices = devices
        self._dev = dev

    def __getattr__(self, name):
        return getattr(self._dev, name)

    def destroy(self):
        return self._devices._stop(self._dev.name())


class _StartedMdev:
    """An mdev started through the fake, as its node device."""

    def __init__(self, devices, name):
        self._devices = devices
        self._name = name

    def _mdev(self):
        found = self._devices._started.get(self._name)
        if found is None:
            raise libvirt_errors.no_node_device(self._name)
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
        return self._devices._stop(self._name)

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
way a real host does: the node device driver driving mdevctl for mdevs
(reserve_fakes.node_devices, with its errors), the QEMU driver for
hot-plug (here). Errors are libvirtError with the code, error domain and
message a real host gives (reserve_fakes.libvirt_errors); those of hot-plug:

========================================  ==============================
case                                      libvirtError (code: message)
========================================  ==============================
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

Simplifications, each invisible to reserve: a live detach completes at
once (QEMU waits for the guest to let go); hot-plug handles ``<hostdev>``
elements only (other devices get the test driver's own "not supported")
and does not look for the PCI address in sysfs (reserve checks the node
devices first). Live changes last until the domain is next started, as on
a real host. State lives in the FakeConnect, as the test driver's lives
in its connection.

``opener(hotplug=False)`` leaves hot-plug to the test driver ("not
supported"), to exercise the fallback that edits the definition.
"""
import collections
import threading
from xml.etree import ElementTree as ET

import libvirt

from reserve.virt import hostdev
from reserve_fakes import libvirt_errors
from reserve_fakes import node_devices

_LIVE = libvirt.VIR_DOMAIN_AFFECT_LIVE
_CONFIG = libvirt.VIR_DOMAIN_AFFECT_CONFIG
_INACTIVE_XML = libvirt.VIR_DOMAIN_XML_INACTIVE | libvirt.VIR_DOMAIN_XML_SECURE


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
        self._devices = node_devices.NodeDevices(conn, self._lock,
                                                 self._in_use)
        self._live = {}      # domain UUID -> _LiveChanges

    def __getattr__(self, name):
        return getattr(self._conn, name)

    # node devices (reserve_fakes.node_devices) ---------------------

    def listAllDevices(self, flags=0):
        return self._devices.list_all(flags)

    def nodeDeviceLookupByName(self, name):
        return self._devices.lookup(name)

    def nodeDeviceCreateXML(self, xml, flags=0):
        return self._devices.create_xml(xml, flags)

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

    def _in_use(self, kind, device_id):
        """The running domain whose guest holds the device, or None."""
        for dom in self._conn.listAllDomains(
                libvirt.VIR_CONNECT_LIST_DOMAINS_ACTIVE):
            live = _Domain(self, dom).XMLDesc(0)
            if (kind, device_id) in {h.key for h in
                                     hostdev.parse_hostdevs(live)}:
                return dom.name()
        return None

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
            raise libvirt_errors.libvirt_error(
                libvirt.VIR_ERR_OPERATION_INVALID, libvirt.VIR_FROM_DOMAIN,
                'domain is not running')
        if flags & _CONFIG and not persistent:
            raise libvirt_errors.libvirt_error(
                libvirt.VIR_ERR_OPERATION_INVALID, libvirt.VIR_FROM_DOMAIN,
                'transient domains do not have any persistent config')
        config_xml = dom.XMLDesc(_INACTIVE_XML) if flags & _CONFIG else None
        in_config = config_xml is not None and key in {
            h.key for h in hostdev.parse_hostdevs(config_xml)}
        in_live = flags & _LIVE and key in {
            h.key for h in hostdev.parse_hostdevs(
                _Domain(self, dom).XMLDesc(0))}
        if attach:
            if flags & _CONFIG and in_config:
                raise libvirt_errors.libvirt_error(
                    libvirt.VIR_ERR_INVALID_ARG, libvirt.VIR_FROM_QEMU,
                    'device is already in the domain configuration')
            if flags & _LIVE:
                self._check_live_attach(kind, device_id)
        else:
            if flags & _CONFIG and not in_config:
                raise libvirt_errors.libvirt_error(
                    libvirt.VIR_ERR_DEVICE_MISSING, libvirt.VIR_FROM_QEMU,
                    'device not present in domain configuration')
            if flags & _LIVE and not in_live:
                raise libvirt_errors.libvirt_error(
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
            raise libvirt_errors.libvirt_error(
                libvirt.VIR_ERR_OPERATION_INVALID, libvirt.VIR_FROM_NONE,
                'PCI device %s is in use by driver QEMU, domain %s'
                % (device_id, holder))
        if kind == hostdev.MDEV:
            if not any(m.uuid == device_id
                       for m in self._devices.active_mdevs()):
                raise libvirt_errors.libvirt_error(
                    libvirt.VIR_ERR_DEVICE_MISSING, libvirt.VIR_FROM_NONE,
                    "mediated device '%s' not found" % device_id)
            if holder:
                raise libvirt_errors.libvirt_error(
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

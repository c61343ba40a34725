"""PCI addresses and the ``<hostdev>`` elements that hand devices to guests.

A whole PCI function is passed through by its address, each part of it
0x-prefixed hexadecimal as libvirt expects::

    <hostdev mode='subsystem' type='pci' managed='yes'>
      <source>
        <address domain='0x0000' bus='0x3b' slot='0x00' function='0x0'/>
      </source>
    </hostdev>

and a mediated device (a vGPU slice) by its UUID::

    <hostdev mode='subsystem' type='mdev' model='vfio-pci'>
      <source><address uuid='4b20d080-1b54-4048-85b3-a6a62d165c01'/></source>
    </hostdev>

``managed='yes'`` lets libvirt unbind the function from its host driver
and bind it to vfio-pci when the guest starts (and give it back after).
"""
import dataclasses
import io
import re
import uuid as uuid_lib
from xml.etree import ElementTree as ET

from reserve.virt import exception

PCI = 'pci'
MDEV = 'mdev'

_PCI_ADDRESS = re.compile(
    r'^(?:([0-9a-fA-F]{4}):)?([0-9a-fA-F]{2}):([0-9a-fA-F]{2})\.([0-7])$')
_PCI_NODE_NAME = re.compile(
    r'^pci_([0-9a-fA-F]{4})_([0-9a-fA-F]{2})_([0-9a-fA-F]{2})_([0-7])$')


@dataclasses.dataclass(frozen=True, order=True)
class PciAddress:
    domain: int
    bus: int
    slot: int
    function: int

    @classmethod
    def parse(cls, text):
        """'0000:3b:00.0', '3b:00.0' or the node device name
        'pci_0000_3b_00_0'; raises InvalidDevice otherwise."""
        match = (_PCI_ADDRESS.match(str(text).strip()) or
                 _PCI_NODE_NAME.match(str(text).strip()))
        if not match:
            raise exception.InvalidDevice(device=text)
        domain, bus, slot, function = match.groups()
        return cls(int(domain or '0', 16), int(bus, 16), int(slot, 16),
                   int(function, 16))

    @classmethod
    def from_xml(cls, element):
        """From an ``<address domain= bus= slot= function=/>`` element;
        libvirt accepts each part in hex ('0x3b') or decimal ('59')."""
        try:
            return cls(*(xml_number(element.get(part, '0'))
                         for part in ('domain', 'bus', 'slot', 'function')))
        except ValueError:
            raise exception.InvalidDevice(device=ET.tostring(
                element, encoding='unicode'))

    def __str__(self):
        return '%04x:%02x:%02x.%x' % (self.domain, self.bus, self.slot,
                                      self.function)

    @property
    def node_device_name(self):
        return 'pci_%04x_%02x_%02x_%x' % (self.domain, self.bus, self.slot,
                                          self.function)

    def xml_attributes(self):
        return {'domain': '0x%04x' % self.domain, 'bus': '0x%02x' % self.bus,
                'slot': '0x%02x' % self.slot,
                'function': '0x%x' % self.function}


def xml_number(text):
    text = text.strip()
    if text.lower().startswith('0x'):
        return int(text, 16)
    return int(text, 10)


def normalize_uuid(text):
    """The canonical lower-case form of a UUID; raises InvalidDevice."""
    try:
        return str(uuid_lib.UUID(str(text)))
    except ValueError:
        raise exception.InvalidDevice(device=text)


@dataclasses.dataclass(frozen=True)
class Hostdev:
    """A device handed to a guest: ``kind`` is 'pci' (``id`` its address,
    '0000:3b:00.0') or 'mdev' (``id`` its UUID). ``live`` and ``config``
    say whether the running guest and its persistent definition hold it;
    None where the guest has no such side (not running, transient)."""
    kind: str
    id: str
    live: bool = None
    config: bool = None

    @property
    def key(self):
        return (self.kind, self.id)

    def to_dict(self):
        return dataclasses.asdict(self)


def pci_hostdev_xml(device):
    """``<hostdev type='pci' managed='yes'>`` for a GPU (anything with an
    ``address``), a PciAddress or an address string."""
    address = getattr(device, 'address', device)
    if not isinstance(address, PciAddress):
        address = PciAddress.parse(address)
    hostdev = ET.Element('hostdev', mode='subsystem', type=PCI,
                         managed='yes')
    source = ET.SubElement(hostdev, 'source')
    ET.SubElement(source, 'address', address.xml_attributes())
    return _to_string(hostdev)


def mdev_hostdev_xml(uuid):
    """``<hostdev type='mdev' model='vfio-pci'>`` for a mediated device."""
    hostdev = ET.Element('hostdev', mode='subsystem', type=MDEV,
                         model='vfio-pci')
    source = ET.SubElement(hostdev, 'source')
    ET.SubElement(source, 'address', uuid=normalize_uuid(uuid))
    return _to_string(hostdev)


def hostdev_xml(kind, device_id):
    if kind == PCI:
        return pci_hostdev_xml(device_id)
    return mdev_hostdev_xml(device_id)


def hostdev_key(element):
    """('pci', '0000:3b:00.0') or ('mdev', uuid) for a ``<hostdev>``
    element, None for other hostdevs (USB, SCSI, capabilities mode)."""
    if element.get('mode', 'subsystem') != 'subsystem':
        return None
    address = element.find('source/address')
    if address is None:
        return None
    if element.get('type') == PCI:
        return (PCI, str(PciAddress.from_xml(address)))
    if element.get('type') == MDEV and address.get('uuid'):
        return (MDEV, normalize_uuid(address.get('uuid')))
    return None


def parse_xml(text):
    """ElementTree of ``text``, its namespace prefixes kept for output
    (a domain's ``<metadata>`` keeps e.g. ``nova:`` when written back)."""
    for _event, (prefix, uri) in ET.iterparse(io.StringIO(text),
                                              events=('start-ns',)):
        if prefix and not re.match(r'ns\d+$', prefix):
            ET.register_namespace(prefix, uri)
    return ET.fromstring(text)


def parse_hostdevs(domain_xml):
    """The PCI and mdev hostdevs of a domain XML, in document order."""
    root = parse_xml(domain_xml)
    found = []
    for element in root.findall('devices/hostdev'):
        key = hostdev_key(element)
        if key is not None:
            found.append(Hostdev(*key))
    return found


def add_hostdev(domain_xml, kind, device_id):
    """The domain XML with the hostdev appended to ``<devices>``
    (unchanged when it is already there)."""
    root = parse_xml(domain_xml)
    devices = root.find('devices')
    if devices is None:
        devices = ET.SubElement(root, 'devices')
    if any(hostdev_key(e) == (kind, device_id)
           for e in devices.findall('hostdev')):
        return domain_xml
    devices.append(ET.fromstring(hostdev_xml(kind, device_id)))
    return _to_string(root)


def remove_hostdev(domain_xml, kind, device_id):
    """The domain XML without that hostdev (unchanged when absent)."""
    root = parse_xml(domain_xml)
    devices = root.find('devices')
    if devices is None:
        return domain_xml
    matches = [e for e in devices.findall('hostdev')
               if hostdev_key(e) == (kind, device_id)]
    if not matches:
        return domain_xml
    for element in matches:
        devices.remove(element)
    return _to_string(root)


def _to_string(element):
    return ET.tostring(element, encoding='unicode')

"""Mediated device (vGPU) definitions for libvirt's node device API.

``nodeDeviceCreateXML`` with this XML asks libvirt (through mdevctl) to
start a transient mdev of a type on a parent GPU::

    <device>
      <parent>pci_0000_3b_00_0</parent>
      <capability type='mdev'>
        <type id='nvidia-222'/>
        <uuid>4b20d080-1b54-4048-85b3-a6a62d165c01</uuid>
      </capability>
    </device>

libvirt names the new node device ``mdev_<uuid>_<parent address>`` with
every non-alphanumeric character as '_'.
"""
import re
from xml.etree import ElementTree as ET

from reserve.virt import hostdev


def mdev_device_xml(parent_name, type_id, uuid):
    device = ET.Element('device')
    ET.SubElement(device, 'parent').text = parent_name
    cap = ET.SubElement(device, 'capability', type='mdev')
    ET.SubElement(cap, 'type', id=type_id)
    ET.SubElement(cap, 'uuid').text = hostdev.normalize_uuid(uuid)
    return ET.tostring(device, encoding='unicode')


def node_device_name(uuid, parent_address):
    """'mdev_4b20d080_..._0000_3b_00_0' for that UUID and parent."""
    return re.sub(r'[^A-Za-z0-9]', '_', 'mdev_%s_%s' % (
        hostdev.normalize_uuid(uuid), parent_address))

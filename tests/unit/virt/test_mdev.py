"""Node device XML for mediated devices."""
from xml.etree import ElementTree as ET

import pytest

from reserve.virt import exception
from reserve.virt import mdev

UUID = '4b20d080-1b54-4048-85b3-a6a62d165c01'


def test_mdev_device_xml():
    device = ET.fromstring(mdev.mdev_device_xml('pci_0000_3b_00_0',
                                                'nvidia-222', UUID.upper()))
    assert device.findtext('parent') == 'pci_0000_3b_00_0'
    cap = device.find("capability[@type='mdev']")
    assert cap.find('type').get('id') == 'nvidia-222'
    assert cap.findtext('uuid') == UUID


def test_node_device_name_as_libvirt_makes_it():
    assert mdev.node_device_name(UUID, '0000:3b:00.0') == (
        'mdev_4b20d080_1b54_4048_85b3_a6a62d165c01_0000_3b_00_0')


def test_bad_uuid():
    with pytest.raises(exception.InvalidDevice):
        mdev.mdev_device_xml('pci_0000_3b_00_0', 'nvidia-222', 'x')

"""A host's node devices as a libvirt connection lists them.

Its PCI functions and its mediated devices, each read into a
reserve.virt.discovery GPU or Mdev. Every function takes the libvirt
connection (``conn``); HostConnection holds the lock around them.
"""
import libvirt

from reserve.virt import discovery
from reserve.virt import exception
from reserve.virt import hostdev


def pci_devices(conn):
    """Every PCI function of the host, sorted by address."""
    devices = conn.listAllDevices(
        libvirt.VIR_CONNECT_LIST_NODE_DEVICES_CAP_PCI_DEV)
    return sorted((discovery.parse_pci_device(dev.XMLDesc(0))
                   for dev in devices), key=lambda d: d.address)


def pci_device(conn, uri, address):
    """The PCI function at a PciAddress; PciDeviceNotFound without it."""
    try:
        dev = conn.nodeDeviceLookupByName(address.node_device_name)
    except libvirt.libvirtError as exc:
        if exc.get_error_code() == libvirt.VIR_ERR_NO_NODE_DEVICE:
            raise exception.PciDeviceNotFound(address=str(address), uri=uri)
        raise
    return discovery.parse_pci_device(dev.XMLDesc(0))


def pci_address(device):
    """The PciAddress of a GPU, an address string or node device name."""
    if isinstance(device, hostdev.PciAddress):
        return device
    return hostdev.PciAddress.parse(getattr(device, 'address', device))


def mdevs(conn):
    """The mediated devices that exist on the host, sorted by UUID."""
    devices = conn.listAllDevices(
        libvirt.VIR_CONNECT_LIST_NODE_DEVICES_CAP_MDEV)
    return sorted((discovery.parse_mdev(dev.XMLDesc(0))
                   for dev in devices), key=lambda m: m.uuid)


def find_mdev(conn, uuid):
    """The Mdev of that UUID, or None."""
    for found in mdevs(conn):
        if found.uuid == uuid:
            return found
    return None

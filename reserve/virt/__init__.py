"""libvirt on GPU hosts: discovery, hostdev/mdev XML, attach and detach.

* ``connection.HostConnection(uri)``: the one connection to a host; its
  GPUs, mediated devices, topology generation and domains; attach and
  detach of hostdevs; creation and removal of mdevs.
* ``node_devices``: the host's PCI functions and mdevs, as listed.
* ``domains``: the domains' hostdevs; the attach and detach change.
* ``discovery``: GPU / Mdev / MdevType read from node device XML.
* ``topology``: the host's topology generation (what counts, what not).
* ``hostdev``: PCI addresses, ``<hostdev>`` XML, domain XML edits.
* ``mdev``: node device XML for creating mdevs.
* ``host_definitions``: the GPU host definitions of etc/reserve/gpu-hosts
  and their ``test:///`` URIs (the fake libvirt that completes them is
  reserve_fakes, outside this package).
* ``exception``: the errors, as reserve.common.exception subclasses.
"""
from reserve.virt.connection import HostConnection  # noqa: F401
from reserve.virt.discovery import GPU  # noqa: F401
from reserve.virt.discovery import Mdev  # noqa: F401
from reserve.virt.discovery import MdevType  # noqa: F401
from reserve.virt.domains import Domain  # noqa: F401
from reserve.virt.hostdev import Hostdev  # noqa: F401
from reserve.virt.hostdev import mdev_hostdev_xml  # noqa: F401
from reserve.virt.hostdev import pci_hostdev_xml  # noqa: F401
from reserve.virt.hostdev import PciAddress  # noqa: F401

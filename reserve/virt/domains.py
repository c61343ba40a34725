"""A host's domains and the hostdevs they hold, through libvirt.

Where a device is in a domain (its running guest, its persistent
definition), which domains hold what, whether a device is free for one
domain, and the change that attaches or detaches it (by hot-plug where
the driver can, else by redefining). The rules are HostConnection's (see
reserve.virt.connection); these functions take the libvirt connection
(``conn``) and its URI for the errors, and HostConnection holds the lock
around them.
"""
import dataclasses
from xml.etree import ElementTree as ET

import libvirt
from oslo_log import log as logging

from reserve.virt import exception
from reserve.virt import hostdev
from reserve.virt import node_devices

LOG = logging.getLogger(__name__)

# What a driver answers for a call it does not implement at all.
_UNSUPPORTED = (libvirt.VIR_ERR_NO_SUPPORT,
                libvirt.VIR_ERR_OPERATION_UNSUPPORTED)
_INACTIVE_XML = libvirt.VIR_DOMAIN_XML_INACTIVE | libvirt.VIR_DOMAIN_XML_SECURE
_LIVE = libvirt.VIR_DOMAIN_AFFECT_LIVE
_CONFIG = libvirt.VIR_DOMAIN_AFFECT_CONFIG


@dataclasses.dataclass(frozen=True)
class Domain:
    name: str
    uuid: str
    running: bool
    persistent: bool


# Where nova writes an instance's owner in its domain's metadata.
NOVA_NS = 'http://openstack.org/xmlns/libvirt/nova/1.1'
_NOVA_PROJECT = './metadata/{%s}instance/{%s}owner/{%s}project' % (
    (NOVA_NS,) * 3)


def nova_owner(xml):
    """The project id (``uuid``) of ``<nova:owner><nova:project>`` in a
    domain's XML, or None when it has none (or the XML is unreadable)."""
    try:
        root = ET.fromstring(xml)
    except ET.ParseError:
        return None
    found = root.find(_NOVA_PROJECT)
    if found is None:
        return None
    return (found.get('uuid') or '').strip() or None


def lookup(conn, uri, name):
    """The libvirt domain of that name; DomainNotFound without it."""
    try:
        return conn.lookupByName(name)
    except libvirt.libvirtError as exc:
        if exc.get_error_code() == libvirt.VIR_ERR_NO_DOMAIN:
            raise exception.DomainNotFound(name=name, uri=uri)
        raise


def where(key, live, config):
    """The Hostdev ``key`` with where it is among a domain's live and
    config hostdev keys (None for a side the domain does not have)."""
    return hostdev.Hostdev(*key, live=None if live is None else key in live,
                           config=None if config is None else key in config)


def hostdev_keys(dom):
    """(live keys or None when not running, config keys or None when
    transient) of a domain's hostdevs."""
    live = config = None
    if dom.isActive():
        live = {h.key for h in hostdev.parse_hostdevs(dom.XMLDesc(0))}
    if dom.isPersistent():
        config = {h.key for h in
                  hostdev.parse_hostdevs(dom.XMLDesc(_INACTIVE_XML))}
    return live, config


def state(dom, kind, device_id):
    """The Hostdev with where the device is in the domain now."""
    return where((kind, device_id), *hostdev_keys(dom))


def holders(conn):
    """{(kind, id): {domain names}} over every domain, live or defined."""
    found = {}
    for dom in conn.listAllDomains(0):
        live, config = hostdev_keys(dom)
        for key in (live or set()) | (config or set()):
            found.setdefault(key, set()).add(dom.name())
    return found


def check_free(conn, uri, kind, device_id, domain_name):
    """Raise DeviceInUse unless ``domain_name`` may take the device: no
    other domain holds it, its IOMMU group or SR-IOV PF/VF, and a whole
    GPU carries no mdevs; MdevNotFound for an mdev that does not exist."""
    held = holders(conn)

    def others(key):
        return sorted(held.get(key, set()) - {domain_name})

    label = '%s %s' % ('PCI device' if kind == hostdev.PCI
                       else 'mediated device', device_id)
    taken = others((kind, device_id))
    if taken:
        raise exception.DeviceInUse(
            device=label, uri=uri,
            reason='attached to domain %s' % ', '.join(taken))
    if kind == hostdev.MDEV:
        if node_devices.find_mdev(conn, device_id) is None:
            raise exception.MdevNotFound(uuid=device_id, uri=uri)
        return
    dev = node_devices.pci_device(conn, uri,
                                  hostdev.PciAddress.parse(device_id))
    related = [(member, 'its IOMMU group %s' % dev.iommu_group)
               for member in dev.iommu_group_members
               if member != device_id]
    if dev.physical_function:
        related.append((dev.physical_function, 'its physical function'))
    related += [(vf, 'its virtual function') for vf in
                dev.virtual_functions]
    for address, relation in related:
        taken = others((hostdev.PCI, address))
        if taken:
            raise exception.DeviceInUse(
                device=label, uri=uri,
                reason='%s %s is attached to domain %s' % (
                    relation, address, ', '.join(taken)))
    children = [m.uuid for m in node_devices.mdevs(conn)
                if m.parent_address == device_id]
    if children:
        raise exception.DeviceInUse(
            device=label, uri=uri,
            reason='it carries mediated devices %s' % ', '.join(children))


def change(conn, uri, dom, kind, device_id, attach, live, config):
    """Attach (or detach) in the scopes asked: both in one call where
    the driver can; otherwise live by hot-plug if it can, and the
    definition by editing it and defining it again."""
    xml = hostdev.hostdev_xml(kind, device_id)
    call = dom.attachDeviceFlags if attach else dom.detachDeviceFlags
    try:
        call(xml, (_LIVE if live else 0) | (_CONFIG if config else 0))
        return
    except libvirt.libvirtError as exc:
        if exc.get_error_code() not in _UNSUPPORTED:
            raise
        LOG.debug('%s cannot %s devices (%s); falling back.', uri,
                  'attach' if attach else 'detach', exc)
    done_live = False
    if live:
        try:
            call(xml, _LIVE)
            done_live = True
        except libvirt.libvirtError as exc:
            if exc.get_error_code() not in _UNSUPPORTED:
                raise
            if not config:
                raise exception.VirtError(
                    uri=uri, libvirt_code=exc.get_error_code(),
                    reason='cannot hot-plug devices, and domain %s is '
                           'transient (no definition to change)'
                           % dom.name())
            LOG.info('%s cannot hot-plug; %s sees %s %s at its next '
                     'start.', uri, dom.name(), kind, device_id)
    if config:
        try:
            _redefine(conn, dom, kind, device_id, attach)
        except Exception:
            if done_live:
                undo = (dom.detachDeviceFlags if attach
                        else dom.attachDeviceFlags)
                try:
                    undo(xml, _LIVE)
                except libvirt.libvirtError:
                    LOG.exception('Could not undo the live change of '
                                  '%s %s on %s', kind, device_id,
                                  dom.name())
            raise


def _redefine(conn, dom, kind, device_id, attach):
    # SECURE keeps what a plain dump leaves out (graphics passwords).
    current = dom.XMLDesc(_INACTIVE_XML)
    edit = hostdev.add_hostdev if attach else hostdev.remove_hostdev
    changed = edit(current, kind, device_id)
    if changed != current:
        conn.defineXML(changed)

"""One libvirt connection per GPU host, and what reserve does through it.

``HostConnection(uri)`` owns a single libvirt connection (``qemu+tls://``
or ``qemu+ssh://`` in production; ``test:///<fixture>.xml`` in tests and
the quick start, whose state lives in that one connection); ``get_host``
hands out one per URI per process. Every public method holds the host's
lock, so a check and the change it guards (is this GPU free? then attach
it) cannot interleave with another thread's.

Attach and detach change the running guest and its persistent definition
together (``attachDeviceFlags(LIVE|CONFIG)``). Where the connection cannot
hot-plug (VIR_ERR_NO_SUPPORT, as libvirt's test driver answers), the
definition is edited and redefined instead (``defineXML``) and the running
guest sees the change at its next start: the returned Hostdev says so
with ``live=False`` after an attach (``live=True`` after a detach).

libvirt lets two guests name the same PCI device; reserve does not:
attach refuses a device held by another domain of the host (running or
defined), a function whose IOMMU group or SR-IOV PF/VF is held by another
domain, a GPU passed through whole while it carries vGPUs, and the reverse.

What it reads and changes is in reserve.virt.node_devices (PCI functions,
mdevs) and reserve.virt.domains (domains' hostdevs, the attach and detach
change); HostConnection adds the lock, the errors and the reconnection.

get_host refuses a URI that reserve.virt.uris does not allow before
anything is opened. Each host has its own lock and its connection is
opened under it, in a thread waited for at most
[devices]libvirt_connect_timeout seconds (reserve.virt.opening): a host
that does not answer holds up the work on that host only. libvirt's
error text goes to the log, the caller gets the service's words
(reserve.virt.errors).
"""
import functools
import threading
import uuid as uuid_lib

import libvirt
from oslo_config import cfg
from oslo_log import log as logging

from reserve import conf as reserve_conf  # noqa: F401 (registers options)
from reserve.virt import discovery
from reserve.virt import domains as virt_domains
from reserve.virt import errors
from reserve.virt import exception
from reserve.virt import hostdev
from reserve.virt import mdev
from reserve.virt import node_devices
from reserve.virt import opening
from reserve.virt import topology
from reserve.virt import uris

CONF = cfg.CONF
LOG = logging.getLogger(__name__)


def _ignore_libvirt_error(_ctx, _err):
    """libvirt prints every error on stderr unless told otherwise; here
    each one reaches the caller as an exception instead."""


def _host_call(func):
    """Hold the host's lock; a libvirt error leaves as VirtError (in the
    service's words; libvirt's in the log)."""

    @functools.wraps(func)
    def wrapper(self, *args, **kwargs):
        with self._lock:
            try:
                return func(self, *args, **kwargs)
            except libvirt.libvirtError as exc:
                raise errors.failed(self.uri, func.__name__, exc)
    return wrapper


def _resolve(device):
    """(kind, id) of whatever names a device."""
    if isinstance(device, discovery.Mdev):
        return hostdev.MDEV, device.uuid
    if isinstance(device, hostdev.Hostdev):
        return device.kind, device.id
    if isinstance(device, (discovery.GPU, hostdev.PciAddress)):
        return hostdev.PCI, str(node_devices.pci_address(device))
    try:
        return hostdev.PCI, str(hostdev.PciAddress.parse(device))
    except exception.InvalidDevice:
        return hostdev.MDEV, hostdev.normalize_uuid(device)


_HOSTS = {}
_HOSTS_LOCK = threading.Lock()


def get_host(uri, opener=None):
    """The process's HostConnection to ``uri``, opened on first use (with
    ``opener``; later callers share that one). Code that works on a host
    goes through here: a ``test:///`` host's state lives in its
    connection, so a second connection would see another host.

    Raises LibvirtUriNotAllowed for a URI reserve.virt.uris refuses, and
    HostUnreachable when the host cannot be reached (in time); the
    global lock is held only to find the host's object, never while a
    connection is opened."""
    uris.check(uri)
    with _HOSTS_LOCK:
        host = _HOSTS.get(uri)
        if host is None:
            host = _HOSTS[uri] = HostConnection(uri, opener=opener,
                                                lazy=True)
    host.connect()
    return host


class HostConnection:
    """The one libvirt connection to a GPU host.

    ``opener(uri)`` returns the libvirt connection (``libvirt.open`` by
    default; tests pass reserve_fakes.libvirt_host.opener()). The connection is
    opened at once (HostUnreachable when it cannot be), or with ``lazy``
    at the first use.
    """

    def __init__(self, uri, opener=None, lazy=False):
        self.uri = uri
        self._opener = opener or libvirt.open
        self._lock = threading.RLock()
        self._conn = None
        self._opening = None     # the attempt in flight (opening.Opening)
        libvirt.registerErrorHandler(_ignore_libvirt_error, None)
        if not lazy:
            self.connect()

    def connect(self):
        """Open the connection now unless it is open."""
        with self._lock:
            self._libvirt

    @property
    def _libvirt(self):
        if self._conn is not None:
            try:
                if self._conn.isAlive():
                    return self._conn
            except libvirt.libvirtError:
                pass
            LOG.warning('Connection to %s was lost; reconnecting.',
                        uris.display(self.uri))
            self._conn = None
        self._conn = self._open()
        return self._conn

    def _open(self):
        """A new libvirt connection: the attempt in flight's, or a new
        attempt's (see reserve.virt.opening)."""
        if self._opening is None:
            self._opening = opening.Opening(self._opener, self.uri)
        attempt = self._opening
        try:
            return attempt.result(CONF.devices.libvirt_connect_timeout)
        finally:
            if attempt.done:
                self._opening = None

    def close(self):
        with self._lock:
            if self._opening is not None:
                self._opening.abandon()
                self._opening = None
            if self._conn is not None:
                try:
                    self._conn.close()
                except libvirt.libvirtError:
                    LOG.debug('Closing %s failed', self.uri, exc_info=True)
                self._conn = None

    def __enter__(self):
        return self

    def __exit__(self, *exc_info):
        self.close()

    def __repr__(self):
        return '<HostConnection %s>' % self.uri

    # discovery -------------------------------------------------------------

    @_host_call
    def gpus(self):
        """The host's GPUs (PCI functions of display class, SR-IOV VFs
        included), sorted by PCI address."""
        return [dev for dev in node_devices.pci_devices(self._libvirt)
                if dev.is_gpu]

    @_host_call
    def gpu(self, device):
        """One PCI function by address, node device name or GPU."""
        return self._pci_device(node_devices.pci_address(device))

    @_host_call
    def mdevs(self):
        """The mediated devices that exist on the host, sorted by UUID."""
        return node_devices.mdevs(self._libvirt)

    @_host_call
    def topology_generation(self):
        """The fingerprint of the GPU layout (see reserve.virt.topology)."""
        return topology.generation(
            dev for dev in node_devices.pci_devices(self._libvirt)
            if dev.is_gpu)

    def _pci_device(self, address):
        return node_devices.pci_device(self._libvirt, self.uri, address)

    def _mdev(self, uuid):
        return node_devices.find_mdev(self._libvirt, uuid)

    # domains ---------------------------------------------------------------

    @_host_call
    def domains(self):
        """Every domain of the host, running or only defined."""
        found = [virt_domains.Domain(name=dom.name(), uuid=dom.UUIDString(),
                                     running=bool(dom.isActive()),
                                     persistent=bool(dom.isPersistent()))
                 for dom in self._libvirt.listAllDomains(0)]
        return sorted(found, key=lambda d: d.name)

    @_host_call
    def nova_owners(self):
        """{domain name: the project nova recorded as its owner, or
        None} of every domain, from each one's metadata."""
        return {dom.name(): virt_domains.nova_owner(dom.XMLDesc(0))
                for dom in self._libvirt.listAllDomains(0)}

    @_host_call
    def domain_xml(self, domain_name, inactive=False):
        """A domain's XML: the running guest's, or its persistent
        definition's with ``inactive`` (secrets are left out)."""
        return self._domain(domain_name).XMLDesc(
            libvirt.VIR_DOMAIN_XML_INACTIVE if inactive else 0)

    @_host_call
    def power_off(self, domain_name):
        """Stop a running domain at once (``virsh destroy``: its
        definition stays); False when it was not running."""
        dom = self._domain(domain_name)
        if not dom.isActive():
            return False
        dom.destroy()
        LOG.info('Powered off domain %s on %s.', domain_name, self.uri)
        return True

    @_host_call
    def attached(self, domain_name):
        """The PCI and mdev hostdevs of a domain, each with where it is
        (``live``: the running guest; ``config``: its definition)."""
        live, config = virt_domains.hostdev_keys(self._domain(domain_name))
        return [virt_domains.where(key, live, config)
                for key in sorted((live or set()) | (config or set()))]

    @_host_call
    def attach(self, domain_name, device):
        """Give a device to a domain: a GPU, an Mdev, a PCI address or
        node device name, or an mdev UUID. Idempotent; returns the
        Hostdev with where the device now is. Raises DeviceInUse when
        another domain of the host holds it (or hardware it shares)."""
        kind, device_id = _resolve(device)
        dom = self._domain(domain_name)
        virt_domains.check_free(self._libvirt, self.uri, kind, device_id,
                                domain_name)
        before = virt_domains.state(dom, kind, device_id)
        live, config = before.live is False, before.config is False
        if not (live or config):
            return before
        virt_domains.change(self._libvirt, self.uri, dom, kind, device_id,
                            True, live, config)
        after = virt_domains.state(dom, kind, device_id)
        LOG.info('Attached %s %s to %s on %s (live: %s, config: %s).', kind,
                 device_id, domain_name, self.uri, after.live, after.config)
        return after

    @_host_call
    def detach(self, domain_name, device):
        """Take a device back from a domain. Idempotent; returns the
        Hostdev with where the device still is."""
        kind, device_id = _resolve(device)
        dom = self._domain(domain_name)
        before = virt_domains.state(dom, kind, device_id)
        live, config = before.live is True, before.config is True
        if not (live or config):
            return before
        virt_domains.change(self._libvirt, self.uri, dom, kind, device_id,
                            False, live, config)
        after = virt_domains.state(dom, kind, device_id)
        LOG.info('Detached %s %s from %s on %s (still live: %s, in '
                 'config: %s).', kind, device_id, domain_name, self.uri,
                 after.live, after.config)
        return after

    def _domain(self, name):
        return virt_domains.lookup(self._libvirt, self.uri, name)

    def _holders(self):
        """{(kind, id): {domain names}} over every domain, live or defined."""
        return virt_domains.holders(self._libvirt)

    # mediated devices --------------------------------------------------------

    @_host_call
    def create_mdev(self, parent, type_id, uuid=None):
        """Start a mediated device of ``type_id`` on the parent GPU (GPU,
        PCI address or node device name); a new UUID unless given.
        Idempotent for an existing UUID of the same parent and type."""
        gpu = self._pci_device(node_devices.pci_address(parent))
        offered = gpu.mdev_type(type_id)
        if offered is None:
            raise exception.MdevTypeNotSupported(
                parent=gpu.address, type=type_id,
                offered=', '.join(t.id for t in gpu.mdev_types) or 'none')
        uuid = hostdev.normalize_uuid(uuid) if uuid else str(uuid_lib.uuid4())
        existing = self._mdev(uuid)
        if existing is not None:
            if (existing.parent_address, existing.type_id) == (gpu.address,
                                                               type_id):
                return existing
            raise exception.MdevExists(uuid=uuid,
                                       parent=existing.parent_address,
                                       type=existing.type_id)
        if offered.available_instances < 1:
            raise exception.MdevTypeExhausted(type=type_id,
                                              parent=gpu.address)
        taken = sorted(self._holders().get((hostdev.PCI, gpu.address), ()))
        if taken:
            raise exception.DeviceInUse(
                device='PCI device %s' % gpu.address, uri=self.uri,
                reason='passed through whole to domain %s' % ', '.join(taken))
        dev = self._libvirt.nodeDeviceCreateXML(
            mdev.mdev_device_xml(gpu.name, type_id, uuid), 0)
        created = discovery.parse_mdev(dev.XMLDesc(0))
        LOG.info('Created mediated device %s (%s) on %s of %s.', uuid,
                 type_id, gpu.address, self.uri)
        return created

    @_host_call
    def remove_mdev(self, uuid):
        """Remove a mediated device; False when it was already gone.
        Raises DeviceInUse while a domain holds it (detach it first)."""
        uuid = hostdev.normalize_uuid(uuid)
        found = self._mdev(uuid)
        if found is None:
            return False
        taken = sorted(self._holders().get((hostdev.MDEV, uuid), ()))
        if taken:
            raise exception.DeviceInUse(
                device='mediated device %s' % uuid, uri=self.uri,
                reason='attached to domain %s' % ', '.join(taken))
        self._libvirt.nodeDeviceLookupByName(found.name).destroy()
        if self._mdev(uuid) is not None:
            raise exception.VirtError(
                uri=self.uri, reason='destroying %s reported success but '
                                     'the device is still there' % found.name)
        LOG.info('Removed mediated device %s from %s of %s.', uuid,
                 found.parent_address, self.uri)
        return True

"""Handing a reservation's devices to domains, and taking them back.

Which device goes to which domain is reserve.devices.plan's business.
``realize`` makes the planned attachments real (creating the mdevs, then
attaching) and records each change in an UndoLog; the caller runs it
inside ``saga()``, so that a failure at any step undoes every step
before it: no mdev left created, no hostdev left attached. Before it,
``mark_attaching`` commits the rows it will attach as ATTACHING: a
crash between libvirt's attach and the commit of ATTACHED leaves rows
that say the device may be there. ``release`` takes back every attachment
not known detached (detach, then remove the mdevs); it is idempotent,
so a teardown that failed half-way converges when run again.
"""
import contextlib

from oslo_log import log as logging

from reserve.db import device_reservations as device_reservations_db
from reserve.devices import states
from reserve.virt import exception as virt_exception

LOG = logging.getLogger(__name__)


class UndoLog:
    """The compensations of the steps done so far, run newest first."""

    def __init__(self):
        self._steps = []

    def __len__(self):
        return len(self._steps)

    def push(self, description, func, *args):
        self._steps.append((description, func, args))

    def rollback(self):
        while self._steps:
            description, func, args = self._steps.pop()
            try:
                func(*args)
            except Exception:
                LOG.exception('Could not undo: %s', description)


@contextlib.contextmanager
def saga():
    """An UndoLog whose steps are undone when the block raises."""
    undo = UndoLog()
    try:
        yield undo
    except BaseException:
        undo.rollback()
        raise


# realizing ----------------------------------------------------------------

def _target(attachment):
    if attachment.kind == states.Attachment.MDEV:
        return attachment.mdev_uuid
    return attachment.device.pci_address


def _hostdev_keys(conn, domain):
    return {(h.kind, h.id) for h in conn.attached(domain)}


def missing(conn, attachments):
    """The ATTACHED ones of ``attachments`` whose device is not where
    their row says (taken out of the running guest or its definition by
    hand); those of a domain that is gone are not for a repair."""
    found = []
    by_domain = {}
    for attachment in attachments:
        if attachment.state != states.Attachment.ATTACHED:
            continue
        domain = attachment.domain
        if domain not in by_domain:
            try:
                by_domain[domain] = {h.key: h for h in conn.attached(domain)}
            except virt_exception.DomainNotFound:
                by_domain[domain] = None
        if by_domain[domain] is None:
            continue
        hostdev = by_domain[domain].get((attachment.kind,
                                         _target(attachment)))
        if hostdev is None or (attachment.live and hostdev.live is False) \
                or (attachment.config and hostdev.config is False):
            found.append(attachment)
    return found


def describe(attachment):
    """'hostdev <PCI address>' or 'mdev <UUID>'."""
    kind = 'mdev' if attachment.kind == states.Attachment.MDEV else 'hostdev'
    return '%s %s' % (kind, _target(attachment))


def mark_attaching(context, attachments):
    """Commit the planned ones of ``attachments`` as ATTACHING, before
    realize asks libvirt (call it outside any transaction of the
    caller's: the mark must outlive a crash of what follows)."""
    ids = [a.id for a in attachments
           if a.state == states.Attachment.PLANNED]
    if ids:
        device_reservations_db.attachments_set_state(
            context, ids, states.Attachment.ATTACHING,
            only_from=(states.Attachment.PLANNED,))


def realize(context, conn, reservation, attachments, undo):
    """Create and attach what ``attachments`` plan; every change goes
    into ``undo`` before it is tried (undoing one that did not happen is
    harmless: removal and detach are idempotent), so that a call that
    failed after changing the host is undone too. Returns how many
    changes were made."""
    before = len(undo)
    existing = {m.uuid for m in conn.mdevs()}
    for attachment in attachments:
        if attachment.kind == states.Attachment.MDEV:
            uuid_ = attachment.mdev_uuid
            if uuid_ not in existing:
                undo.push('mdev %s' % uuid_, conn.remove_mdev, uuid_)
                conn.create_mdev(attachment.device.pci_address,
                                 reservation.mdev_type, uuid=uuid_)
                existing.add(uuid_)
        target = _target(attachment)
        if (attachment.kind, target) not in _hostdev_keys(
                conn, attachment.domain):
            undo.push('%s %s on %s' % (attachment.kind, target,
                                       attachment.domain),
                      conn.detach, attachment.domain, target)
        hostdev = conn.attach(attachment.domain, target)
        device_reservations_db.attachment_update(context, attachment.id, {
            'state': states.Attachment.ATTACHED, 'live': hostdev.live,
            'config': hostdev.config})
    return len(undo) - before


def release(context, conn, attachments, end_action='detach',
            final_state=states.Attachment.DETACHED):
    """Take back every attachment that may be on the host, ATTACHED
    or ATTACHING (powering the domains of those attached off first
    with end_action 'destroy'), remove the mdevs; idempotent: what
    libvirt says is not attached is left as it is. A PLANNED one is
    known not attached (nothing was asked of libvirt for it: the mark
    comes first) and is only closed: the same device in the same domain
    may be another reservation's now."""
    attached = [a for a in attachments
                if a.state == states.Attachment.ATTACHED]
    if end_action == 'destroy':
        for domain in sorted({a.domain for a in attached}):
            try:
                conn.power_off(domain)
            except virt_exception.DomainNotFound:
                pass
    for attachment in attachments:
        if attachment.state == final_state:
            continue
        if attachment.state in states.Attachment.MAY_BE_ATTACHED:
            _take_back(conn, attachment)
        device_reservations_db.attachment_update(context, attachment.id, {
            'state': final_state, 'live': None, 'config': None})


def _take_back(conn, attachment):
    target = _target(attachment)
    try:
        conn.detach(attachment.domain, target)
    except virt_exception.DomainNotFound:
        LOG.info('Domain %s is gone: nothing to detach from it.',
                 attachment.domain)
    if attachment.kind != states.Attachment.MDEV:
        return
    try:
        conn.remove_mdev(attachment.mdev_uuid)
    except virt_exception.DeviceInUse as exc:
        # A guest that could not let go live holds it until it stops;
        # the next discovery shows the device in use meanwhile.
        LOG.warning('Mediated device %s left in place: %s',
                    attachment.mdev_uuid, exc)

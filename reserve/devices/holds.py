"""GPU devices over a window, as a project sees them: the input of every
check and hold.

A device is withheld over a window by every unreleased reservation whose
window overlaps it (a needs-review one included: it grants nothing but
keeps its devices). While a reservation holds a device now, the device is
invisible to every project outside its audience: it is not listed, not
shown (404) and cannot be named in a reservation. A device that shares
hardware with a held one (its SR-IOV physical function or one of its
virtual functions, a member of its IOMMU group) is held with it: shown
as reserved, and never selected over that window.

``check`` is the dry run: it reads and selects, and writes nothing.
``hold`` runs the same selection inside the caller's transaction, after
locking the host, and writes the reservation rows.
"""
import dataclasses
import datetime

from reserve.common import exception
from reserve.common import timeutils
from reserve.db import api as db_api
from reserve.db import device_reservations as device_reservations_db
from reserve.db import devices as devices_db
from reserve.db import hosts as hosts_db
from reserve.devices import selection
from reserve.devices import states

# "Now" as a window: the second that has begun.
INSTANT = datetime.timedelta(seconds=1)


def can_see(reservation, viewer):
    if viewer is None:
        return True
    return (reservation.project_id == viewer or
            any(p.project_id == viewer for p in reservation.projects))


def held_now(context, host_ids=None, now=None):
    """{device_id: reservation} of the reservations holding devices now."""
    now = now or timeutils.utcnow()
    return {device_id: reservation for device_id, reservation in
            device_reservations_db.holds(context, now, now + INSTANT,
                                         host_ids=host_ids)}


def hidden(device_id, holders, viewer):
    """Whether ``viewer`` (a project, None for admins) must not see it."""
    found = holders.get(device_id)
    return found is not None and not can_see(found, viewer)


def holder(device, holders, by_address=None):
    """The reservation holding the device now (``holders``: held_now's),
    itself or, given ``by_address`` ({(host_id, pci_address): device} of
    its host), through a device it shares hardware with; else None."""
    found = holders.get(device.id)
    if found is not None or by_address is None:
        return found
    for address in sorted(_related(device)):
        other = by_address.get((device.host_id, address))
        if other is not None and other.id in holders:
            return holders[other.id]
    return None


def device_state(device, holders, by_address=None):
    """The state the API shows: missing, reserved, in-use, available.
    With ``by_address`` (see ``holder``), a device sharing hardware with
    a device held now is reserved too."""
    if device.state == states.Device.MISSING:
        return states.DeviceShown.MISSING
    if device.id in holders:
        return states.DeviceShown.RESERVED
    if device.in_use_by:
        return states.DeviceShown.IN_USE
    if holder(device, holders, by_address) is not None:
        return states.DeviceShown.RESERVED
    return states.DeviceShown.AVAILABLE


def _window(reservation):
    end = ('open-ended' if states.is_open_end(reservation.end)
           else 'until %s' % timeutils.isoformat(reservation.end))
    return 'from %s %s' % (timeutils.isoformat(reservation.start), end)


def _hold_reason(reservation, viewer):
    text = 'reserved %s' % _window(reservation)
    if can_see(reservation, viewer):
        text += ' by reservation %s' % reservation.id
        if reservation.released_at is None and (
                reservation.status == states.DeviceReservation.CANCELLED):
            text += ' (cancelled, being released)'
    return text


def _blocked(device, host, held, by_address, viewer):
    if not host.reservable:
        return 'its host %s is not reservable' % host.name
    if host.failure:
        return 'its host %s has failed: %s' % (host.name, host.failure)
    if device.state == states.Device.MISSING:
        return 'missing from its host since the last discovery'
    if device.in_use_by:
        if viewer is not None:
            # What holds it names domains, maybe another project's.
            return 'in use outside reserve'
        return 'in use by %s' % ', '.join(device.in_use_by)
    if device.id in held:
        return _hold_reason(held[device.id], viewer)
    related = _related(device)
    for address in sorted(related):
        other = by_address.get((device.host_id, address))
        if other is not None and other.id in held:
            return 'it shares hardware with %s, %s' % (
                address, _hold_reason(held[other.id], viewer))
    return None


def _related(device):
    related = {a for a in device.iommu_group_members or ()
               if a != device.pci_address}
    if device.physical_function:
        related.add(device.physical_function)
    related.update(device.virtual_functions or ())
    return frozenset(related)


def _read(context, start, end, host_ids, exclude):
    """What devices_over builds on: (hosts by id, their devices, the
    (device_id, reservation) holds over [start, end), held_now's)."""
    hosts = {h.id: h for h in devices_db.libvirt_hosts(context)}
    if host_ids is not None:
        hosts = {k: v for k, v in hosts.items() if k in host_ids}
    devices = devices_db.device_list(context, host_ids=list(hosts))
    # The holds over the window, and held_now's, in one read.
    now = timeutils.utcnow()
    held, current = device_reservations_db.holds_over(
        context, [(start, end), (now, now + INSTANT)], host_ids=list(hosts))
    held = [(device_id, reservation) for device_id, reservation in held
            if exclude is None or reservation.id != exclude]
    return hosts, devices, held, dict(current)


def _build(hosts, devices, held, holders, viewer, exclude):
    """devices_over's answer from what _read read (``held``: {device_id:
    reservation} of the holds over the window)."""
    by_address = {(d.host_id, d.pci_address): d for d in devices}
    found = []
    for device in devices:
        if (hidden(device.id, holders, viewer) and
                (exclude is None or holders[device.id].id != exclude)):
            continue
        host = hosts[device.host_id]
        found.append(selection.Device(
            id=device.id, host_id=host.id, host=host.name,
            pci_address=device.pci_address,
            model=selection.model_name(device.product_name,
                                       device.vendor_id, device.product_id),
            vendor_id=device.vendor_id, product_id=device.product_id,
            numa_node=device.numa_node,
            is_vf=bool(device.physical_function),
            related=_related(device),
            mdev_types={t['id']: t['available_instances']
                        for t in device.mdev_types or ()},
            blocked=_blocked(device, host, held, by_address, viewer)))
    return found


def devices_over(context, start, end, viewer=None, host_ids=None,
                 exclude=None):
    """selection.Device of every GPU of the libvirt hosts that ``viewer``
    may see, each blocked or not over [start, end) (``exclude``: a
    reservation whose own holds do not count)."""
    hosts, devices, held, holders = _read(context, start, end, host_ids,
                                          exclude)
    return _build(hosts, devices, dict(held), holders, viewer, exclude)


def devices_within(context, start, end, viewer=None, host_ids=None,
                   exclude=None):
    """(over, reservations) from one read: over(s, e) is devices_over's
    answer for any [s, e) within [start, end) as it would be read now;
    reservations: those holding devices of these hosts then, whose
    bounds are where that answer can change."""
    hosts, devices, held, holders = _read(context, start, end, host_ids,
                                          exclude)

    def over(window_start, window_end):
        return _build(hosts, devices,
                      {device_id: reservation
                       for device_id, reservation in held
                       if reservation.start < window_end and
                       reservation.end > window_start},
                      holders, viewer, exclude)
    return over, list({r.id: r for _, r in held}.values())


def on_hosts_with_domains(context, request, start, end, domains,
                          read_domains, viewer=None):
    """A count request without a host, narrowed to the reservable hosts
    with devices of it that have every domain of ``domains`` (a request
    naming devices or a host is returned as it is: its host is checked
    when held). ``read_domains(host)`` gives the names of a host's
    domains; it is called once per host considered, before any hold,
    by a caller that holds none of reserve's locks (a libvirt call per
    host must not run under them). A host whose domains cannot be read
    (CloudError: libvirt unreachable; or its URI is no longer allowed)
    is not chosen. Raises
    DomainNotFound when no host has them all."""
    if not domains or request.device_ids or request.host_id:
        return request
    reservable = {h.id: h for h in
                  devices_db.libvirt_hosts(context, reservable=True)}
    considered = selection.hosts_of(
        devices_over(context, start, end, viewer=viewer,
                     host_ids=list(reservable)), request)
    found = {}
    for host_id in sorted(considered, key=considered.get):
        try:
            found[host_id] = frozenset(read_domains(reservable[host_id]))
        except (exception.CloudError,
                exception.LibvirtUriNotAllowed) as exc:
            found[host_id] = exc.message
    return selection.on_domain_hosts(request, domains, considered, found)


def check(context, request, start, end, viewer=None, exclude=None):
    """The dry run: the Selection the request would get over [start,
    end), or the error a hold would raise. Writes nothing."""
    host_ids = [request.host_id] if request.host_id else (
        list(request.host_ids) or None)
    return selection.select(
        devices_over(context, start, end, viewer=viewer, host_ids=host_ids,
                     exclude=exclude), request)


def choose(context, request, start, end, domains, read_domains,
           viewer=None):
    """The dry run of a request naming ``domains``: the host it would
    get (steered to one that has them, see on_hosts_with_domains) and
    the Selection there, checking that the host chosen has every domain
    (DomainNotFound else). Returns (the request pinned to that host, the
    Selection). Writes nothing; holds none of reserve's locks."""
    request = on_hosts_with_domains(context, request, start, end, domains,
                                    read_domains, viewer=viewer)
    chosen = check(context, request, start, end, viewer=viewer)
    if domains:
        host = hosts_db.host_get(context, chosen.host_id)
        known = read_domains(host)
        missing = [name for name in domains if name not in known]
        if missing:
            raise exception.DomainNotFound(name=missing[0], host=host.name)
    return dataclasses.replace(request, host_id=chosen.host_id), chosen


def check_window(context, reservation, start, end):
    """Raise DevicesUnavailable unless a reservation's devices stay free
    when its window becomes [start, end)."""
    request = selection.Request(
        device_ids=tuple(u.device_id for u in reservation.devices),
        host_id=reservation.host_id)
    try:
        check(context, request, start, end, exclude=reservation.id)
    except exception.DeviceNotFound:
        raise exception.DevicesUnavailable(
            reason='a device of reservation %s is no longer known' %
            reservation.id)


def hold(context, request, start, end, viewer, values, projects,
         attachments_for, admit=None):
    """Select and write the reservation, inside the caller's capacity
    transaction (reserve.booking.admission.capacity_transaction): its
    lock serialises every hold, so the devices read free are still free
    when written. ``attachments_for(selection)`` gives the planned
    attachments; ``admit()``, called once the devices are chosen and
    before anything is written, may refuse (the quota): a request that
    cannot fit is told so first. Returns (the reservation's id,
    selection)."""
    chosen = check(context, request, start, end, viewer=viewer)
    if admit is not None:
        admit()
    values = dict(values, host_id=chosen.host_id)
    reservation_id = device_reservations_db.device_reservation_insert(
        context, values, projects, chosen.device_ids,
        attachments_for(chosen))
    return reservation_id, chosen


def release(context, reservation_id):
    """Free the devices of a reservation whose lease was never made: its
    start never ran, so nothing of it is on the host, and its planned
    attachments are closed without libvirt. Idempotent; a reservation
    with something attached is left to the manager (runs.end)."""
    reservation = device_reservations_db.device_reservation_find(
        context, reservation_id, collections=('attachments',))
    if reservation is None or reservation.released_at is not None:
        return False
    if any(a.state in states.Attachment.MAY_BE_ATTACHED
           for a in reservation.attachments):
        return False
    with db_api.writer.using(context):
        for attachment in reservation.attachments:
            if attachment.state != states.Attachment.DETACHED:
                device_reservations_db.attachment_update(
                    context, attachment.id,
                    {'state': states.Attachment.DETACHED, 'live': None,
                     'config': None})
        device_reservations_db.device_reservation_update(
            context, reservation_id, {'released_at': timeutils.utcnow()})
    return True

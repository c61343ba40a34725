"""Database reads of the calendar page (GET /v1/calendar): what holds a
flavor's slots, a host's instances or a host's GPU devices over a range.

Unlike the booking desk's reads (reserve.db.desk), these also return
what has run: a booking or device reservation that ended is drawn in its
final status. Cancelled ones never held their window and are left out.
Same conventions as reserve.db.api.
"""
import collections

import sqlalchemy as sa

from reserve.common import states
from reserve.db import api as db_api
from reserve.db import models

B = models.Booking
A = models.Allocation
L = models.Lease
DR = models.DeviceReservation
DRD = models.DeviceReservationDevice
DRP = models.DeviceReservationProject

# One thing drawn: a booking, a lease's allocation or a device
# reservation, holding ``count`` lanes over [start, end).
Held = collections.namedtuple(
    'Held', 'kind id project_id status start end count')


def _reader(context):
    return db_api.reader.using(context)


def _ran_or_live(model, live, ended):
    """Rows that hold or held their window: in a ``live`` status, or
    ended by their lease in an ``ended`` one (the desk's close, a cancel,
    never held what was left of it)."""
    return sa.or_(model.status.in_(live),
                  sa.and_(model.closed_as.is_(None),
                          model.recorded_status.in_(ended)))


def flavor_bookings(context, flavor, start, end, guard):
    """The bookings of ``flavor`` met by [start, end), each held until its
    end + ``guard``, by start."""
    query = (sa.select(B.id, B.project_id, B.status, B.start, B.end,
                       B.instance_count)
             .where(B.flavor_id == flavor.id)
             .where(B.end > start - guard)
             .where(B.start < end)
             .where(_ran_or_live(
                 B, states.Booking.LIVE,
                 (states.Booking.COMPLETE, states.Booking.ERROR)))
             .order_by(B.start, B.id))
    with _reader(context) as session:
        return [Held('booking', *row) for row in session.execute(query)]


def host_allocations(context, host_id, start, end, guard):
    """What holds instances of ``host_id`` in [start, end): each
    allocation, with the status and project of its booking (or, for a
    lease no booking owns, of its lease), and the GPUs of one of its
    instances ({key: count} or None), as [(Held, gpus)] by start."""
    query = (sa.select(A.booking_id, A.lease_reservation_id,
                       B.project_id, B.status, L.project_id, L.status,
                       A.start, A.end, A.amount, A.gpus)
             .select_from(A)
             .outerjoin(B, B.id == A.booking_id)
             .outerjoin(models.LeaseReservation,
                        models.LeaseReservation.id == A.lease_reservation_id)
             .outerjoin(L, L.id == models.LeaseReservation.lease_id)
             .where(A.host_id == host_id)
             .where(A.end > start - guard)
             .where(A.start < end)
             .order_by(A.start, A.id))
    held = []
    with _reader(context) as session:
        for (booking_id, reservation_id, b_project, b_status, l_project,
             l_status, a_start, a_end, amount, gpus) in \
                session.execute(query):
            if booking_id is not None:
                one = Held('booking', booking_id, b_project, b_status,
                           a_start, a_end, amount)
            else:
                one = Held('lease', reservation_id, l_project, l_status,
                           a_start, a_end, amount)
            held.append((one, gpus))
    return held


def host_device_reservations(context, host_id, start, end, live, ended):
    """{device id: [Held]} of the device reservations of ``host_id`` met
    by [start, end) that are in a ``live`` status or ended in an
    ``ended`` one, and {reservation id: its projects} (owner and
    audience), by start. The statuses are the caller's
    (reserve.devices.states, a layer above this one)."""
    query = (sa.select(DRD.device_id, DR.id, DR.project_id, DR.status,
                       DR.start, DR.end)
             .select_from(DRD).join(DR, DR.id == DRD.device_reservation_id)
             .where(DR.host_id == host_id)
             .where(DR.end > start)
             .where(DR.start < end)
             .where(_ran_or_live(DR, live, ended))
             .order_by(DR.start, DR.id))
    by_device = collections.defaultdict(list)
    projects = collections.defaultdict(set)
    with _reader(context) as session:
        for device_id, r_id, project_id, status, r_start, r_end in \
                session.execute(query):
            by_device[device_id].append(Held(
                'device_reservation', r_id, project_id, status, r_start,
                r_end, 1))
            projects[r_id].add(project_id)
        if projects:
            for r_id, project_id in session.execute(
                    sa.select(DRP.device_reservation_id, DRP.project_id)
                    .where(DRP.device_reservation_id.in_(
                        sorted(projects)))):
                projects[r_id].add(project_id)
    return by_device, projects


def host_devices(context, host_id):
    """The GPU devices of ``host_id``, by PCI address."""
    D = models.Device
    with _reader(context) as session:
        return (session.query(D).filter(D.host_id == host_id)
                .order_by(D.pci_address).all())

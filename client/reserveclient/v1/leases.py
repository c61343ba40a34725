"""The leases of the reserve API."""
from reserveclient import exceptions
from reserveclient.v1 import base
from reserveclient.v1 import httpclient


class LeaseManager(base.Manager):
    """/v1/leases: the lease engine's leases (read only)."""

    path = '/v1/leases'
    key = 'lease'
    collection_key = 'leases'
    what = 'lease'

    def list(self, all_projects=False, project_id=None, status=None,
             limit=None, marker=None):
        params = {'project_id': project_id, 'status': status}
        if all_projects:
            params['all_projects'] = 'true'
        return self._list(params, limit=limit, marker=marker)

    def find(self, ref):
        """A lease by its id, the id of its booking (/v1/reservations),
        its name ("reservation-<booking-id>") or the id of a reservation
        inside it (which is also the reserved flavor's id)."""
        try:
            return self.get(ref)
        except exceptions.NotFound as exc:
            not_found = exc
        try:
            booking = self.http.get(
                '/v1/reservations/%s' % httpclient.quote(ref))
        except exceptions.NotFound:
            booking = None
        booking = (booking or {}).get('reservation') or None
        lease_id = (booking or {}).get('lease_id')
        if lease_id:
            return self.get(lease_id)
        try:
            leases = self._list({'all_projects': 'true'})
        except exceptions.Forbidden:
            leases = self._list()
        # A booking's lease is named reservation-<booking id> (older
        # servers: "Reservation <booking id>").
        names = (ref, 'reservation-%s' % ref, 'Reservation %s' % ref)
        matches = [lease for lease in leases
                   if lease.get('name') in names
                   or any(r.get('id') == ref
                          for r in lease.get('reservations') or [])]
        if len(matches) == 1:
            return matches[0]
        if len(matches) > 1:
            raise exceptions.ReserveClientError(
                'More than one lease matches %r (%s); use the ID.' % (
                    ref, ', '.join(m['id'] for m in matches)))
        if booking is not None:
            raise exceptions.ReserveClientError(_no_lease_yet(booking))
        raise not_found


def _no_lease_yet(booking):
    """Why a booking shows no lease, in words."""
    status = booking.get('status')
    msg = 'Reservation %s has no lease' % booking.get('id')
    if status == 'PENDING_CREATE':
        return ('%s yet: it is PENDING_CREATE, and its lease_id appears '
                'once it is ALLOCATED: openstack reserve reservation show '
                '%s' % (msg, booking.get('id')))
    reason = booking.get('status_reason')
    return '%s (it is %s%s).' % (msg, status,
                                 ': %s' % reason if reason else '')

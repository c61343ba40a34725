"""The device reservations of the reserve API."""
from reserveclient.v1 import base
from reserveclient.v1 import diagnoses
from reserveclient.v1 import httpclient
from reserveclient.v1 import names

# Spot devices (release, reclaim) exist from this microversion of the
# API; these calls ask for it whatever version the client speaks
# otherwise (and so name devices device_ids).
SPOT_VERSION = '1.4'


class DeviceReservationManager(base.Manager):
    """/v1/device-reservations: GPU devices reserved for projects."""

    path = '/v1/device-reservations'
    key = 'device_reservation'
    collection_key = 'device_reservations'
    what = 'device reservation'

    def list(self, all_projects=False, limit=None, marker=None, **filters):
        """Filters: project_id, status, host (name or ID)."""
        params = dict(filters)
        if all_projects:
            params['all_projects'] = 'true'
        return self._list(params, limit=limit, marker=marker)

    def create(self, dry_run=False, **values):
        """Either device_ids, or device_count (with model, host,
        numa_local): the names of API 1.2, sent as unit_ids and count
        before it."""
        body = names.sent(self.http, names.DEVICE_RESERVATION,
                          httpclient.compact(values))
        if dry_run:
            return self.http.post(self.path, body,
                                  {'dry_run': 'true'})['dry_run']
        return self._create(body)

    def update(self, reservation_id, **values):
        """end (None: open-ended), allowed_projects, managing_projects,
        contract_ref, reason; or domains on their own."""
        return self._update(reservation_id, values)

    def _action(self, reservation_id, action, body=None):
        return self.http.post('%s/%s' % (self._item_path(reservation_id),
                                         action), body)[self.key]

    def affirm(self, reservation_id):
        return self._action(reservation_id, 'affirm')

    def attach(self, reservation_id, domain, device_ids=None):
        """Attach the devices (or ``device_ids`` of them) to ``domain``."""
        body = {'domain': domain}
        if device_ids:
            body['device_ids'] = list(device_ids)
        return self._action(reservation_id, 'attach', names.sent(
            self.http, names.DEVICE_RESERVATION, body))

    def detach(self, reservation_id, domain):
        return self._action(reservation_id, 'detach', {'domain': domain})

    def release(self, reservation_id, device_ids):
        """Put devices none of its domains uses on the spot market; the
        reservation as API 1.4 shows it (with released_device_ids)."""
        return self.http.post(
            '%s/release' % self._item_path(reservation_id),
            {'device_ids': list(device_ids)}, version=SPOT_VERSION)[self.key]

    def reclaim(self, reservation_id, device_ids=None, dry_run=False):
        """Take lent devices back (default: all it lent): {device_ids,
        terminated, skipped}, or with dry_run {device_ids,
        would_terminate, would_skip} and nothing changed."""
        body = {'dry_run': bool(dry_run)}
        if device_ids:
            body['device_ids'] = list(device_ids)
        return self.http.post(
            '%s/reclaim' % self._item_path(reservation_id), body,
            version=SPOT_VERSION)

    def cancel(self, reservation_id):
        """Cancel a live reservation (or remove one that is over)."""
        self.delete(reservation_id)

    def diagnose(self, reservation_id):
        """Each layer of it read live, and the first mismatch (API 1.3)."""
        return diagnoses.diagnose(self.http, self._item_path(reservation_id))

"""The device reservations of the reserve API."""
from reserveclient.v1 import base
from reserveclient.v1 import diagnoses
from reserveclient.v1 import httpclient


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
        """Either unit_ids, or count (with model, host, numa_local)."""
        body = httpclient.compact(values)
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

    def attach(self, reservation_id, domain, unit_ids=None):
        body = {'domain': domain}
        if unit_ids:
            body['unit_ids'] = list(unit_ids)
        return self._action(reservation_id, 'attach', body)

    def detach(self, reservation_id, domain):
        return self._action(reservation_id, 'detach', {'domain': domain})

    def cancel(self, reservation_id):
        """Cancel a live reservation (or remove one that is over)."""
        self.delete(reservation_id)

    def diagnose(self, reservation_id):
        """Each layer of it read live, and the first mismatch (API 1.3)."""
        return diagnoses.diagnose(self.http, self._item_path(reservation_id))

"""The reservations (bookings) of the reserve API."""
from reserveclient.v1 import base
from reserveclient.v1 import diagnoses
from reserveclient.v1 import sharing

# A booking asked with standby waits for room (STANDBY) instead of being
# refused; a reservation's standby_since and standby_until.
STANDBY_VERSION = '1.8'


class ReservationManager(base.Manager):
    """/v1/reservations: bookings of a flavor for a window."""

    path = '/v1/reservations'
    key = 'reservation'
    collection_key = 'reservations'
    what = 'reservation'

    def list(self, all_projects=False, project_id=None, flavor_id=None,
             status=None, limit=None, marker=None):
        params = {'project_id': project_id, 'flavor_id': flavor_id,
                  'status': status}
        if all_projects:
            params['all_projects'] = 'true'
        return self._list(params, limit=limit, marker=marker)

    def create(self, flavor_id, start, end, instance_count=None,
               standby=False, standby_until=None, shared_project_ids=None):
        """Book; with ``standby`` (API 1.8), a window that does not fit
        waits as STANDBY until room frees (or ``standby_until``); with
        ``shared_project_ids`` (API 1.9), those projects may boot its
        reserved flavor too."""
        body = {'flavor_id': flavor_id, 'start': start, 'end': end}
        if instance_count is not None:
            body['instance_count'] = instance_count
        if shared_project_ids:
            self.http.require_version(sharing.VERSION, sharing.WHAT)
            body[sharing.FIELD] = list(shared_project_ids)
        if not standby:
            return self._create(body)
        self.http.require_version(STANDBY_VERSION, 'Waiting on standby')
        body['standby'] = True
        if standby_until is not None:
            body['standby_until'] = standby_until
        return self._create(body)

    def update(self, reservation_id, end):
        return self._update(reservation_id, {'end': end})

    def diagnose(self, reservation_id):
        """Each layer of it read live, and the first mismatch (API 1.3)."""
        return diagnoses.diagnose(self.http, self._item_path(reservation_id))

    def share(self, reservation_id, project_id):
        """Let ``project_id`` boot its flavor too (API 1.9); the
        projects it is shared with then."""
        return sharing.add(self.http, self._item_path(reservation_id),
                           project_id)

    def unshare(self, reservation_id, project_id):
        """Stop sharing it with ``project_id`` (API 1.9)."""
        sharing.remove(self.http, self._item_path(reservation_id),
                       project_id)

    def set_shared_projects(self, reservation_id, project_ids):
        """Share it with exactly ``project_ids`` (API 1.9)."""
        return sharing.replace(self.http, self._item_path(reservation_id),
                               project_ids)

"""The reservable flavors of the reserve API."""
from reserveclient.v1 import base
from reserveclient.v1 import httpclient


class FlavorManager(base.Manager):
    """/v1/flavors: the reservable flavor catalogue.

    Every path takes a flavor's id or its name.
    """

    path = '/v1/flavors'
    key = 'flavor'
    collection_key = 'flavors'
    what = 'flavor'

    def create(self, **values):
        return self._create(httpclient.compact(values))

    def update(self, flavor_ref, **values):
        return self._update(flavor_ref, values)

    # access to private flavors

    def _access_path(self, flavor_ref):
        return '%s/projects' % self._item_path(flavor_ref)

    def list_access(self, flavor_ref):
        return self.http.list(self._access_path(flavor_ref), 'projects')

    def grant_access(self, flavor_ref, project_id):
        return self.http.post(self._access_path(flavor_ref),
                              {'project_id': project_id})['project']

    def revoke_access(self, flavor_ref, project_id):
        self.http.delete('%s/%s' % (self._access_path(flavor_ref),
                                    httpclient.quote(project_id)))

    # the calendar

    def free_slots(self, flavor_ref, start=None, end=None,
                   instance_count=None):
        """{flavor_id, instance_count, start, end, free_slots: [...]}"""
        return self.http.get('%s/free-slots' % self._item_path(flavor_ref),
                             {'start': start, 'end': end,
                              'instance_count': instance_count})

    def availability(self, start=None, end=None, **filters):
        """{start, end, availability: [{flavor_id, name, total,
        available, ...}]}: now, or the fewest free over a window."""
        params = dict(filters, start=start, end=end)
        return self.http.get('%s/availability' % self.path, params)

"""The reservable flavors of the reserve API."""
from reserveclient import exceptions
from reserveclient.v1 import base
from reserveclient.v1 import httpclient

# Spot flavors exist from this microversion of the API: spot in the
# bodies and views of the catalogue, opt-in, spot_available. Calls that
# write them ask for it; show and availability ask for it whenever the
# server offers it (and no older version was asked for).
SPOT_VERSION = '1.4'


class FlavorManager(base.Manager):
    """/v1/flavors: the reservable flavor catalogue.

    Every path takes a flavor's id or its name.
    """

    path = '/v1/flavors'
    key = 'flavor'
    collection_key = 'flavors'
    what = 'flavor'

    def shows_spot(self):
        """Whether show and availability answer with the spot fields."""
        return self.http.offers(SPOT_VERSION)

    def _need_spot(self, what):
        """SPOT_VERSION, or UnsupportedVersion saying why it cannot be
        asked for."""
        if self.http.offers(SPOT_VERSION):
            return SPOT_VERSION
        versions = self.http.server_versions()
        if self.http.pinned() or versions is None:
            why = 'this request uses %s' % httpclient.format_version(
                self.http.api_version)
        else:
            why = 'the server offers up to %s' % httpclient.format_version(
                versions[1])
        raise exceptions.UnsupportedVersion(
            '%s needs version %s of the reserve API; %s (set '
            '--os-reserve-api-version or upgrade the server)' % (
                what, SPOT_VERSION, why))

    def _spot_version(self, values):
        """The version of a write: SPOT_VERSION when it names spot."""
        if 'spot' not in values:
            return None
        return self._need_spot('A spot flavor')

    def create(self, **values):
        body = httpclient.compact(values)
        version = self._spot_version(body)
        return self.http.post(self.path, body, version=version)[self.key]

    def update(self, flavor_ref, **values):
        version = self._spot_version(values)
        return self.http.patch(self._item_path(flavor_ref), values,
                               version=version)[self.key]

    def get(self, ref):
        """The flavor, with spot and opted_in when the server has them."""
        return self.http.get(self._item_path(ref),
                             version=self.http.newest(SPOT_VERSION))[
            self.key]

    # spot flavors: projects opt in and out

    def _opt_in_path(self, flavor_ref):
        return '%s/opt-in' % self._item_path(flavor_ref)

    def opt_in(self, flavor_ref, project_id=None):
        """The caller's project (or ``project_id``, administrators) opts
        in to a spot flavor."""
        self.http.post(self._opt_in_path(flavor_ref), None,
                       {'project_id': project_id},
                       version=self._need_spot('Opting in'))

    def opt_out(self, flavor_ref, project_id=None):
        self.http.delete(self._opt_in_path(flavor_ref),
                         {'project_id': project_id},
                         version=self._need_spot('Opting out'))

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
        available, ...}]}: now, or the fewest free over a window; with
        spot and, for spot flavors, spot_available when the server has
        them."""
        params = dict(filters, start=start, end=end)
        return self.http.get('%s/availability' % self.path, params,
                             version=self.http.newest(SPOT_VERSION))

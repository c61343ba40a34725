"""A small client of the reserve API (v1) over a keystoneauth session.

The session authenticates (or not: the keystoneauth ``none`` plugin works
against a server running without authentication); this module finds the
endpoint, speaks the microversion header, follows ``next`` links and turns
error answers into :mod:`reserveclient.exceptions` errors.

Usage::

    from keystoneauth1 import session
    from reserveclient.v1 import client

    reserve = client.Client(session.Session(auth=...))
    for booking in reserve.reservations.list(all_projects=True):
        ...
"""
import logging
import urllib.parse

from keystoneauth1 import exceptions as ks_exceptions

from reserveclient import exceptions

LOG = logging.getLogger(__name__)

SERVICE_TYPE = 'reserve'
VERSION_HEADER = 'OpenStack-API-Version'

# The microversions this client knows, oldest first. The default ("1")
# asks for the newest of these that the server offers too.
MIN_VERSION = '1.0'
MAX_VERSION = '1.0'


def parse_version(text):
    """'1.2' → (1, 2); '1' → (1, None); ValueError otherwise."""
    parts = str(text).strip().split('.')
    if not 1 <= len(parts) <= 2 or not all(p.isdigit() for p in parts):
        raise ValueError('%r is not an API version' % text)
    major = int(parts[0])
    minor = int(parts[1]) if len(parts) == 2 else None
    return major, minor


def format_version(version):
    return '%d.%d' % version


def _quote(ref):
    return urllib.parse.quote(str(ref), safe='')


def _compact(params):
    """Query parameters without the ones left unset."""
    return {k: v for k, v in (params or {}).items() if v is not None}


class HTTPClient:
    """Requests to the reserve API: endpoint, version header, errors."""

    def __init__(self, session, service_type=SERVICE_TYPE, interface=None,
                 region_name=None, endpoint_override=None, api_version='1'):
        self.session = session
        self.service_type = service_type
        self.interface = interface
        self.region_name = region_name
        self.endpoint_override = endpoint_override
        major, minor = parse_version(api_version)
        if major != 1:
            raise exceptions.UnsupportedVersion(
                'reserve API version %s is not supported by this client; '
                'use 1 or 1.<minor>' % api_version)
        self._requested_version = (major, minor)
        self._version = None
        self._server_versions = None
        self._endpoint = None

    # -- endpoint and version ------------------------------------------------

    @property
    def endpoint(self):
        """The root URL of the API (without /v1), found once."""
        if self._endpoint is None:
            url = self.endpoint_override
            if not url:
                try:
                    url = self.session.get_endpoint(
                        service_type=self.service_type,
                        interface=self.interface,
                        region_name=self.region_name)
                except (ks_exceptions.EndpointNotFound,
                        ks_exceptions.MissingAuthPlugin) as exc:
                    raise self._no_endpoint(exc)
                if not url:
                    raise self._no_endpoint(None)
            url = url.rstrip('/')
            if url.endswith('/v1'):
                url = url[:-len('/v1')]
            self._endpoint = url
        return self._endpoint

    def _no_endpoint(self, cause):
        where = ['service type %r' % self.service_type]
        if self.interface:
            where.append('interface %r' % self.interface)
        if self.region_name:
            where.append('region %r' % self.region_name)
        msg = ('No endpoint for the reserve API: none was given and the '
               'service catalog has none (%s). Set OS_RESERVE_URL (or '
               '--os-reserve-url) to the URL of the API, e.g. '
               'http://127.0.0.1:8785' % ', '.join(where))
        if cause is not None:
            msg += ' [%s]' % cause
        return exceptions.EndpointNotFound(msg)

    def server_versions(self):
        """(min, max) microversions of the server, or None if unknown."""
        if self._server_versions is None:
            try:
                doc = self._send('GET', '/v1', None, None, {},
                                 versioned=False)
                version = (doc or {}).get('version') or {}
                self._server_versions = (
                    parse_version(version['min_version']),
                    parse_version(version['max_version']))
            except (exceptions.HttpError, KeyError, TypeError, ValueError):
                LOG.debug('reserve API version discovery failed',
                          exc_info=True)
                self._server_versions = False
        return self._server_versions or None

    @property
    def api_version(self):
        """The microversion sent with every request, as (major, minor)."""
        if self._version is None:
            major, minor = self._requested_version
            if minor is not None:
                self._version = (major, minor)
            else:
                known = parse_version(MAX_VERSION)
                if known == parse_version(MIN_VERSION):
                    self._version = known
                else:
                    versions = self.server_versions()
                    if versions is None:
                        self._version = parse_version(MIN_VERSION)
                    else:
                        self._version = min(known, versions[1])
        return self._version

    def require_version(self, version, what):
        """Refuse, clearly, a call the negotiated version does not offer."""
        needed = parse_version(version)
        if self.api_version < needed:
            raise exceptions.UnsupportedVersion(
                '%s needs version %s of the reserve API; this request uses '
                '%s (set --os-reserve-api-version or upgrade the server)' %
                (what, version, format_version(self.api_version)))

    # -- requests ------------------------------------------------------------

    def _send(self, method, path, params, body, headers, versioned=True):
        url = self.endpoint + path
        headers = dict(headers or {})
        if method != 'DELETE':
            # A DELETE answers 204 without a body (errors are JSON anyway);
            # asking for JSON there is refused (406) by some servers.
            headers.setdefault('Accept', 'application/json')
        if versioned:
            headers[VERSION_HEADER] = '%s %s' % (
                SERVICE_TYPE, format_version(self.api_version))
        kwargs = {'headers': headers, 'raise_exc': False}
        if params:
            kwargs['params'] = params
        if body is not None:
            kwargs['json'] = body
        try:
            response = self.session.request(url, method, **kwargs)
        except ks_exceptions.ConnectionError as exc:
            raise exceptions.ConnectionFailed(
                'Unable to reach the reserve API at %s: %s' %
                (self.endpoint, exc))
        if response.status_code >= 400:
            raise exceptions.from_response(response, method, url)
        if response.status_code == 204 or not response.content:
            return None
        try:
            return response.json()
        except ValueError:
            raise exceptions.ReserveClientError(
                'The reserve API at %s answered %s %s with something that '
                'is not JSON' % (self.endpoint, method, path))

    def get(self, path, params=None):
        return self._send('GET', path, _compact(params), None, None)

    def post(self, path, body, params=None):
        return self._send('POST', path, _compact(params), body, None)

    def patch(self, path, body):
        return self._send('PATCH', path, None, body, None)

    def put(self, path, body=None):
        return self._send('PUT', path, None, body, None)

    def delete(self, path):
        return self._send('DELETE', path, None, None, None)

    def list(self, path, key, params=None, limit=None, marker=None):
        """Items of a collection, following ``next`` links.

        Without ``limit`` every page is read; with it, at most ``limit``
        items are returned (more than one page only when the server caps
        its page size below ``limit``).
        """
        base = _compact(params)
        params = dict(base)
        if marker:
            params['marker'] = marker
        items = []
        seen = set()
        while True:
            page_params = dict(params)
            if limit is not None:
                page_params['limit'] = limit - len(items)
            doc = self.get(path, page_params) or {}
            page = doc.get(key) or []
            items.extend(page)
            if limit is not None and len(items) >= limit:
                return items[:limit]
            next_params = self._next_params(doc)
            if not page or next_params is None:
                return items
            token = next_params.get('marker')
            if token in seen:
                return items
            seen.add(token)
            # The link carries the filters; keep ours should it not.
            params = dict(base)
            params.update((k, v) for k, v in next_params.items()
                          if k != 'limit')
            if limit is None and 'limit' in next_params:
                params['limit'] = next_params['limit']

    @staticmethod
    def _next_params(doc):
        for link in doc.get('links') or []:
            if link.get('rel') == 'next' and link.get('href'):
                query = urllib.parse.urlsplit(link['href']).query
                return dict(urllib.parse.parse_qsl(query,
                                                   keep_blank_values=True))
        return None


class Manager:
    """The calls of one resource."""

    path = None
    key = None
    collection_key = None
    what = None

    def __init__(self, http):
        self.http = http

    def _item_path(self, ref):
        return '%s/%s' % (self.path, _quote(ref))

    def _list(self, params=None, limit=None, marker=None):
        return self.http.list(self.path, self.collection_key, params,
                              limit=limit, marker=marker)

    def list(self, limit=None, marker=None, **filters):
        """Every item (following the next links), filtered."""
        return self._list(filters, limit=limit, marker=marker)

    def get(self, ref):
        return self.http.get(self._item_path(ref))[self.key]

    def delete(self, ref):
        self.http.delete(self._item_path(ref))

    def _create(self, body):
        return self.http.post(self.path, body)[self.key]

    def _update(self, ref, body):
        return self.http.patch(self._item_path(ref), body)[self.key]

    def find(self, ref):
        """The item whose id (or, where the API has names, name) is ref."""
        return self.get(ref)


class ReservationManager(Manager):
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

    def create(self, flavor_id, start, end, instance_count=None):
        body = {'flavor_id': flavor_id, 'start': start, 'end': end}
        if instance_count is not None:
            body['instance_count'] = instance_count
        return self._create(body)

    def update(self, reservation_id, end):
        return self._update(reservation_id, {'end': end})


class LeaseManager(Manager):
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
        inside it (which is also the compute flavor's id)."""
        try:
            return self.get(ref)
        except exceptions.NotFound as exc:
            not_found = exc
        try:
            booking = self.http.get('/v1/reservations/%s' % _quote(ref))
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


class HostManager(Manager):
    """/v1/hosts: hypervisors enrolled for reservations."""

    path = '/v1/hosts'
    key = 'host'
    collection_key = 'hosts'
    what = 'host'

    def list(self, reservable=None, limit=None, marker=None):
        params = {}
        if reservable is not None:
            params['reservable'] = 'true' if reservable else 'false'
        return self._list(params, limit=limit, marker=marker)

    def create(self, name, capabilities=None, reservable=None, uri=None):
        """A nova hypervisor by name, or a libvirt host by ``uri``."""
        body = {'name': name}
        if uri:
            body['uri'] = uri
        if capabilities:
            body['capabilities'] = capabilities
        if reservable is not None:
            body['reservable'] = reservable
        return self._create(body)

    def update(self, host_ref, capabilities=None, reservable=None):
        """capabilities maps keys to values; a None value drops the key."""
        body = {}
        if capabilities:
            body['capabilities'] = capabilities
        if reservable is not None:
            body['reservable'] = reservable
        return self._update(host_ref, body)


class FlavorManager(Manager):
    """/v1/flavors: the reservable flavor catalogue.

    Every path takes a flavor's id or its name.
    """

    path = '/v1/flavors'
    key = 'flavor'
    collection_key = 'flavors'
    what = 'flavor'

    def create(self, **values):
        return self._create(_compact(values))

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
                                    _quote(project_id)))

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


class MaintenanceWindowManager(Manager):
    """/v1/maintenance-windows: times no booking may overlap."""

    path = '/v1/maintenance-windows'
    key = 'maintenance_window'
    collection_key = 'maintenance_windows'
    what = 'maintenance window'

    def create(self, **values):
        return self._create(_compact(values))

    def update(self, window_id, **values):
        return self._update(window_id, values)


class LimitsManager:
    """/v1/limits: a project's reservation quota and its usage."""

    path = '/v1/limits'

    def __init__(self, http):
        self.http = http

    def get(self, project_id=None):
        """{project_id, driver, resources: {name: {limit, in_use}}}"""
        return self.http.get(self.path, {'project_id': project_id})['limits']


class AllocationManager(Manager):
    """/v1/allocations: which hosts back which reservations (admin)."""

    path = '/v1/allocations'
    key = 'allocation'
    collection_key = 'allocations'
    what = 'allocation'


class DeviceManager(Manager):
    """/v1/devices: the GPU units of the libvirt hosts."""

    path = '/v1/devices'
    key = 'device'
    collection_key = 'devices'
    what = 'device'

    def list(self, limit=None, marker=None, **filters):
        """Filters: host (name or ID), model, state, numa_node."""
        return self._list(filters, limit=limit, marker=marker)

    def find(self, ref, host=None):
        """A unit by its ID, PCI address (0000:3b:00.0) or node device
        name (pci_0000_3b_00_0), on ``host`` when given."""
        try:
            return self.get(ref)
        except exceptions.NotFound as exc:
            not_found = exc
        # Virtual functions are listed only when asked for.
        matches = [d for d in self.list(host=host, include_vfs='true')
                   if ref in (d.get('pci_address'), d.get('node_device'))]
        if len(matches) == 1:
            return matches[0]
        if len(matches) > 1:
            raise exceptions.ReserveClientError(
                'More than one GPU unit is %s (on hosts %s); give the host '
                'or use the ID.' % (ref, ', '.join(
                    sorted(str(m.get('host')) for m in matches))))
        raise not_found

    def availability(self, start=None, end=None, **filters):
        """{start, end, availability: [{host, model, free, unit_ids}]}"""
        return self.http.get('%s/availability' % self.path,
                             dict(filters, start=start, end=end))


class DeviceReservationManager(Manager):
    """/v1/device-reservations: GPU units reserved for projects."""

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
        body = _compact(values)
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


class Client:
    """The reserve API, one attribute per resource."""

    def __init__(self, session, **kwargs):
        self.http = HTTPClient(session, **kwargs)
        self.reservations = ReservationManager(self.http)
        self.leases = LeaseManager(self.http)
        self.hosts = HostManager(self.http)
        self.flavors = FlavorManager(self.http)
        self.maintenance_windows = MaintenanceWindowManager(self.http)
        self.limits = LimitsManager(self.http)
        self.allocations = AllocationManager(self.http)
        self.devices = DeviceManager(self.http)
        self.device_reservations = DeviceReservationManager(self.http)

    @property
    def api_version(self):
        return format_version(self.http.api_version)

"""A double of the reserve API behind a fake keystoneauth session.

It keeps resources in memory and answers like the real API: the error
body ``{"errors": [...]}``, paging with ``limit``/``marker`` and a
``next`` link, 404 for unknown paths, the version document at ``/v1``,
406 for a version it does not offer. It keeps each resource under the
names of microversion 1.2 and answers under those of the version asked
(``fake_names``): tests add items under the names of 1.2. Every request
is recorded so tests can check what the client sent.
"""
import datetime
import types
import urllib.parse
import uuid

from keystoneauth1 import exceptions as ks_exceptions

from reserveclient.v1 import httpclient

from reserveclient.tests.unit import fake_calendar
from reserveclient.tests.unit import fake_device_refusals
from reserveclient.tests.unit import fake_diagnoses
from reserveclient.tests.unit import fake_names
from reserveclient.tests.unit import fake_offers
from reserveclient.tests.unit import fake_rest
from reserveclient.tests.unit import fake_series
from reserveclient.tests.unit import fake_sharing
from reserveclient.tests.unit import fake_spot

# How the double answers, whatever the resource (see fake_rest), by the
# names the routes below and the tests use.
ENDPOINT = fake_rest.ENDPOINT
FakeResponse = fake_rest.FakeResponse
ApiError = fake_rest.ApiError
_error = fake_rest._error
Collection = fake_rest.Collection
# [booking] guard_seconds of the API's default.
GUARD = datetime.timedelta(seconds=60)


def _date(text):
    return datetime.datetime.fromisoformat(text.rstrip('Z'))


def _iso(when):
    return when.isoformat() + 'Z'


class FakeReserveAPI:
    """The routes of the reserve API the client uses."""

    def __init__(self, max_limit=1000, max_version=httpclient.MAX_VERSION):
        self.max_limit = max_limit
        self.max_version = max_version
        self.requests = []
        self.reservations = Collection(
            self, 'reservations', 'reservation',
            filters=('all_projects', 'project_id', 'flavor_id', 'status'),
            view=lambda item, one: fake_names.reservation(
                item, self.version(), one, self.requests[-1].method))
        self.leases = Collection(
            self, 'leases', 'lease',
            filters=('all_projects', 'project_id', 'status'),
            view=lambda item, one: fake_names.lease(item, self.version()))
        self.hosts = Collection(
            self, 'hosts', 'host', filters=('reservable',), by_name=True,
            view=lambda item, one: fake_names.host(item, self.version()))
        self.flavors = Collection(
            self, 'flavors', 'flavor', by_name=True,
            filters=('category', 'availability_zone', 'is_public',
                     'active'))
        self.windows = Collection(self, 'maintenance-windows',
                                  'maintenance_window',
                                  filters=('flavor_id', 'include_past'))
        self.allocations = Collection(
            self, 'allocations', 'allocation',
            filters=('host_id', 'lease_reservation_id', 'lease_id'),
            view=lambda item, one: fake_names.shown(
                item, self.version(), fake_names.ALLOCATION))
        self.devices = Collection(
            self, 'devices', 'device',
            filters=('host', 'model', 'state', 'numa_node'),
            view=lambda item, one: fake_names.shown(
                item, self.version(), fake_names.DEVICE))
        # /v1/series (fake_series): each occurrence a reservation.
        self.series = Collection(
            self, 'series', 'series', filters=('all_projects', 'project_id'),
            view=lambda item, one: fake_series.view(self, item))
        self.device_reservations = Collection(
            self, 'device-reservations', 'device_reservation',
            filters=('all_projects', 'project_id', 'status', 'host'),
            view=lambda item, one: fake_names.device_reservation(
                item, self.version()))
        self.free_slots = {}
        self.available = {}
        # The devices of the double's libvirt host, None: without end
        # (fake_device_refusals).
        self.device_slots = None
        # {spot flavor id: spot_available} of /v1/flavors/availability
        self.spot_available = {}
        # {(host id, domain): project id} of /v1/hosts/{h}/domain-owners
        self.domain_owners = {}
        # {reservation id: diagnosis} of the diagnosis routes
        self.diagnoses = {}
        # {device id: the spot domain holding it} of the spot routes
        self.spot_domains = {}
        # True: the caller is no administrator (all_projects is refused).
        self.member_only = False
        # Of /v1/calendar: the server's now (its default start), the
        # maintenance windows of hosts ({host id: [{start, end, note}]})
        # and the policy rules the caller is refused.
        self.calendar_now = '2026-12-04T15:02:11Z'
        self.host_windows = {}
        self.denied = set()
        self.limits = {}
        # Of /v1/offers (fake_offers): {id: offer}, and the lapsed ids.
        self.offers = {}
        self.lapsed = set()
        self.enabled = {'reservations', 'leases', 'hosts', 'flavors',
                        'maintenance-windows', 'allocations', 'limits',
                        'devices', 'device-reservations'}

    # -- the dispatcher ------------------------------------------------------

    def version(self):
        """The microversion of the request being served."""
        return fake_rest.version_of(self.requests[-1].headers,
                                    self.max_version)

    def _check_version(self):
        version = self.version()
        if not fake_rest.MIN_VERSION <= version <= fake_rest.parse_version(
                self.max_version):
            raise ApiError(406, 'Not acceptable: version %d.%d of the '
                           'reserve API is not supported; this server '
                           'supports 1.0 to %s' % (version + (
                               self.max_version,)), 'reserve.not_acceptable')

    def __call__(self, method, url, headers, params, body):
        self.requests.append(types.SimpleNamespace(
            method=method, url=url, headers=headers, params=params or {},
            body=body))
        split = urllib.parse.urlsplit(url)
        path = split.path
        params = dict(params or {})
        params.update(urllib.parse.parse_qsl(split.query))
        params = {k: str(v) for k, v in params.items()}
        try:
            self._check_version()
            return self._route(method, path, params, body)
        except ApiError as exc:
            return _error(exc.status, exc.detail, exc.code,
                          fields=exc.fields)

    def _route(self, method, path, params, body):
        if path == '/v1' and method == 'GET':
            return FakeResponse(200, {'version': {
                'id': 'v1.0', 'status': 'CURRENT', 'min_version': '1.0',
                'max_version': self.max_version, 'links': []}})
        parts = path.strip('/').split('/')
        if fake_diagnoses.is_diagnosis(parts):
            return fake_diagnoses.answer(self, method, path, parts)
        if fake_calendar.is_calendar(parts):
            return fake_calendar.answer(self, method, path, params)
        if fake_series.is_series(parts):
            return fake_series.answer(self, method, path, parts, params,
                                      body)
        if fake_sharing.is_sharing(parts):
            return fake_sharing.answer(self, method, path, parts)
        if fake_offers.is_offers(parts):
            return fake_offers.answer(self, method, path, params)
        if fake_spot.is_spot(parts, method):
            return fake_spot.answer(self, path, parts, body)
        if len(parts) < 2 or parts[0] != 'v1' or \
                parts[1] not in self.enabled:
            raise ApiError(404, 'The resource %s could not be found.' % path)
        name, rest = parts[1], [urllib.parse.unquote(p) for p in parts[2:]]
        handler = getattr(self, '_%s' % name.replace('-', '_'))
        return handler(method, rest, params, body)

    def _crud(self, coll, method, rest, params, body, create=None,
              update=None):
        if not rest:
            if method == 'GET':
                return FakeResponse(200, coll.list(params))
            if method == 'POST':
                item = create(body) if create else coll.add(**body)
                return FakeResponse(201, {coll.key: coll.show(item)})
        elif len(rest) == 1:
            item = coll.lookup(rest[0])
            if method == 'GET':
                return FakeResponse(200, {coll.key: coll.show(item)})
            if method == 'PATCH':
                if update:
                    update(item, body)
                else:
                    item.update(body)
                return FakeResponse(200, {coll.key: coll.show(item)})
            if method == 'DELETE':
                coll.items.remove(item)
                return FakeResponse(204)
        raise ApiError(405, 'Method %s is not allowed.' % method,
                       'reserve.method_not_allowed')

    def _reservations(self, method, rest, params, body):
        if not rest and method == 'GET' and 'flavor_id' in params:
            # A name or an id; an unknown one matches nothing.
            try:
                params['flavor_id'] = self.flavors.lookup(
                    params['flavor_id'])['id']
            except ApiError:
                pass

        def create(body):
            offer_id = body.get('offer_id')
            if offer_id is not None:
                body = fake_offers.book(self, body)
            body = dict(body)
            try:
                flavor = self.flavors.lookup(body['flavor_id'])
                body['flavor_id'] = flavor['id']
            except ApiError:
                raise ApiError(400, 'Flavor %s is not available to project '
                               'project-a' % body['flavor_id'],
                               'reserve.invalid')
            status = self._admitted(flavor, body)
            fake_sharing.on_create(self, body)
            values = dict(
                project_id='project-a', user_id='alice', instance_count=1,
                status=status, status_reason=None, lease_id=None,
                reserved_flavor_id=None, created_at='2026-01-01T00:00:00Z',
                updated_at='2026-01-01T00:00:00Z')
            if status == 'STANDBY':
                values['standby_since'] = '2026-01-01T00:00:00Z'
            body.pop('standby', None)
            values.update(body)
            booking = self.reservations.add(**values)
            if offer_id is not None:
                self.offers[offer_id]['booking_id'] = booking['id']
            return booking

        def update(item, body):
            self._check_later_end(item, body)
            item.update(body)
        return self._crud(self.reservations, method, rest, params, body,
                          create=create, update=update)

    def _admitted(self, flavor, body):
        """The status of a new booking: PENDING_CREATE when it fits;
        since 1.8, with standby, STANDBY when it does not; refused
        otherwise."""
        if self.version() < fake_names.STANDBY and (
                'standby' in body or 'standby_until' in body):
            raise ApiError(400, 'Invalid input: Additional properties are '
                           'not allowed (\'standby\' was unexpected)',
                           'reserve.invalid')
        try:
            self._check_capacity(flavor, body)
        except ApiError as exc:
            if exc.code != 'reserve.no_capacity' or not body.get('standby'):
                raise
            return 'STANDBY'
        return 'PENDING_CREATE'

    def _check_later_end(self, booking, body):
        """A later end beyond a flavor's ``slots`` is refused as the API
        refuses it, with the latest end that fits (a guard before the
        first booking in the way) since 1.6."""
        flavor = next((f for f in self.flavors.items
                       if f['id'] == booking['flavor_id']), None)
        old_end, end = _date(booking['end']), _date(body['end'])
        if flavor is None or flavor.get('slots') is None or end <= old_end:
            return
        in_way = [r for r in self.reservations.items
                  if r is not booking and r['flavor_id'] == flavor['id'] and
                  _date(r['start']) < end + GUARD and
                  old_end < _date(r['end'])]
        if sum(r['instance_count'] for r in in_way) + booking[
                'instance_count'] <= flavor['slots']:
            return
        latest = min(_date(r['start']) for r in in_way) - GUARD
        latest = _iso(latest) if latest > old_end else None
        fields = {}
        if self.version() >= fake_names.COUNTER_OFFER:
            fields['counter_offer'] = {
                'flavor_id': flavor['id'],
                'instance_count': booking['instance_count'],
                'before': None, 'after': None, 'latest_end': latest,
                'max_instance_count': 0,
                'free_slots': '/v1/flavors/%s/free-slots?instance_count=%d'
                              % (flavor['id'], booking['instance_count'])}
        raise ApiError(409, (
            'No capacity: %d instance(s) of flavor %s do not fit between %s '
            'and %s: at most 0 do. %s GET /v1/flavors/%s/free-slots lists '
            'the windows that fit.' % (
                booking['instance_count'], flavor['name'], booking['end'],
                body['end'], 'It can be moved to %s at the latest.' % latest
                if latest else 'It cannot be moved any later now.',
                flavor['id'])), 'reserve.no_capacity', fields=fields)

    def _check_capacity(self, flavor, body):
        """A flavor added with ``slots`` holds that many instances at
        once; a booking beyond them is refused as the API refuses it:
        409 reserve.no_capacity, the earliest window of the same shape
        after the bookings in the way (a guard of 60 s after them) and,
        since 1.6, the counter_offer. (The double offers nothing
        before.)"""
        if flavor.get('slots') is None:
            return
        count = body.get('instance_count', 1)
        start, end = (_date(body['start']), _date(body['end']))
        in_way = [r for r in self.reservations.items
                  if r['flavor_id'] == flavor['id'] and
                  r.get('status') != 'STANDBY' and
                  _date(r['start']) < end and start < _date(r['end'])]
        held = sum(r['instance_count'] for r in in_way)
        if held + count <= flavor['slots']:
            return
        after = max(_date(r['end']) for r in in_way) + GUARD
        window = {'start': _iso(after), 'end': _iso(after + (end - start))}
        fields = {}
        if self.version() >= fake_names.COUNTER_OFFER:
            fields['counter_offer'] = {
                'flavor_id': flavor['id'], 'instance_count': count,
                'before': None, 'after': window,
                'max_instance_count': max(0, flavor['slots'] - held),
                'free_slots': '/v1/flavors/%s/free-slots?instance_count=%d'
                              % (flavor['id'], count)}
        raise ApiError(409, (
            'No capacity: %d instance(s) of flavor %s do not fit between %s '
            'and %s: at most %d do. The nearest windows of this shape that '
            'fit: from %s to %s (later). GET /v1/flavors/%s/free-slots '
            'lists the windows that fit.' % (
                count, flavor['name'], body['start'], body['end'],
                max(0, flavor['slots'] - held), window['start'],
                window['end'], flavor['id'])), 'reserve.no_capacity',
            fields=fields)

    def _leases(self, method, rest, params, body):
        if self.member_only and 'all_projects' in params:
            raise ApiError(403, 'Policy does not allow '
                           'reserve:lease:list:all_projects to be performed.',
                           'reserve.forbidden')
        if method != 'GET':
            raise ApiError(405, 'read only', 'reserve.method_not_allowed')
        return self._crud(self.leases, method, rest, params, body)

    def _domain_owner_routes(self, method, host, rest, body):
        def view(domain):
            return {'host_id': host['id'], 'domain': domain,
                    'project_id': self.domain_owners[host['id'], domain],
                    'created_at': '2026-01-01T00:00:00Z',
                    'updated_at': '2026-01-01T00:00:00Z'}
        if not rest and method == 'GET':
            return FakeResponse(200, {'domain_owners': [
                view(d) for h, d in sorted(self.domain_owners)
                if h == host['id']]})
        if not rest and method == 'POST':
            if (host['id'], body['domain']) in self.domain_owners:
                raise ApiError(409, 'Domain %s has an owner already'
                               % body['domain'], 'reserve.conflict')
            self.domain_owners[host['id'], body['domain']] = \
                body['project_id']
            return FakeResponse(201, {'domain_owner': view(body['domain'])})
        if len(rest) == 1 and method in ('GET', 'PATCH', 'DELETE'):
            key = (host['id'], rest[0])
            if key not in self.domain_owners:
                raise ApiError(404, 'No owner is recorded for domain %s'
                               % rest[0])
            if method == 'DELETE':
                del self.domain_owners[key]
                return FakeResponse(204)
            if method == 'PATCH':
                self.domain_owners[key] = body['project_id']
            return FakeResponse(200, {'domain_owner': view(rest[0])})
        raise ApiError(405, 'Method %s is not allowed.' % method,
                       'reserve.method_not_allowed')

    def _hosts(self, method, rest, params, body):
        if len(rest) >= 2 and rest[1] == 'domain-owners':
            return self._domain_owner_routes(
                method, self.hosts.lookup(rest[0]), rest[2:], body)

        def create(body):
            return self.hosts.add(
                name=body['name'], service_name=body['name'], kind='nova',
                provider_uuid=str(uuid.uuid4()), vcpus=64, memory_mb=515072,
                local_gb=1800, reservable=body.get('reservable', True),
                capabilities=body.get('capabilities', {}),
                created_at='2026-01-01T00:00:00Z', updated_at=None)

        def update(item, body):
            if 'reservable' in body:
                item['reservable'] = body['reservable']
            for key, value in (body.get('capabilities') or {}).items():
                if value is None:
                    item['capabilities'].pop(key, None)
                else:
                    item['capabilities'][key] = value
        return self._crud(self.hosts, method, rest, params, body,
                          create=create, update=update)

    def _flavors(self, method, rest, params, body):
        if rest == ['availability'] and method == 'GET':
            rows = [fake_spot.availability_row(self, f, {
                'flavor_id': f['id'], 'name': f['name'],
                'nova_flavor_id': f.get('nova_flavor_id'),
                'category': f.get('category'),
                'availability_zone': f.get('availability_zone'),
                'active': f.get('active', True),
                'total': f.get('slots'),
                'available': self.available.get(f['id'], f.get('slots'))})
                for f in self.flavors.items
                if self.flavors.matches(f, params)]
            return FakeResponse(200, {
                'start': params.get('start'), 'end': params.get('end'),
                'availability': rows})
        if len(rest) >= 2:
            flavor = self.flavors.lookup(rest[0])
            if rest[1:] == ['opt-in']:
                return fake_spot.opt_in(self, method, flavor, params)
            if rest[1] == 'projects':
                grants = flavor.setdefault('projects', [])
                if len(rest) == 2 and method == 'GET':
                    return FakeResponse(200, {'projects': [
                        {'project_id': p} for p in grants]})
                if len(rest) == 2 and method == 'POST':
                    if body['project_id'] in grants:
                        raise ApiError(409, 'Project %s is already granted '
                                       'flavor %s.' % (body['project_id'],
                                                       flavor['id']),
                                       'reserve.grant_exists')
                    grants.append(body['project_id'])
                    return FakeResponse(201, {'project': {
                        'project_id': body['project_id']}})
                if len(rest) == 3 and method == 'DELETE':
                    if rest[2] not in grants:
                        raise ApiError(404, 'Project %s has no grant on '
                                       'flavor %s.' % (rest[2],
                                                       flavor['id']))
                    grants.remove(rest[2])
                    return FakeResponse(204)
            if rest[1] == 'free-slots' and method == 'GET':
                return FakeResponse(200, {
                    'flavor_id': flavor['id'],
                    'instance_count': int(params.get('instance_count', 1)),
                    'start': params.get('start', '2026-01-01T00:00:00Z'),
                    'end': params.get('end', '2026-01-31T00:00:00Z'),
                    'max_length_hours': flavor.get('max_length_hours'),
                    'free_slots': self.free_slots.get(flavor['id'], [])})
            raise ApiError(404, 'The resource could not be found.')

        def create(body):
            values = dict(description=None, max_length_hours=168,
                          active=True, is_public=True, start=None, end=None,
                          category=None, availability_zone=None,
                          projects=[], created_at='2026-01-01T00:00:00Z',
                          updated_at='2026-01-01T00:00:00Z')
            values.update(body)
            if values.get('spot'):
                values.setdefault('slots', 0)
                values.setdefault('spot_project_ids', [])
            return self.flavors.add(**values)
        fake_spot.check_flavor_body(self, body)
        answer = self._crud(self.flavors, method, rest, params, body,
                            create=create)
        doc = answer.json() if answer.content else None
        if doc and ('flavor' in doc or 'flavors' in doc):
            if 'flavor' in doc:
                doc['flavor'] = fake_spot.flavor_view(self, doc['flavor'])
            else:
                doc['flavors'] = [fake_spot.flavor_view(self, f)
                                  for f in doc['flavors']]
            answer = FakeResponse(answer.status_code, doc)
        return answer

    def _maintenance_windows(self, method, rest, params, body):
        def create(body):
            values = dict(note=None, all_flavors=False, flavors=[],
                          created_at='2026-01-01T00:00:00Z',
                          updated_at='2026-01-01T00:00:00Z')
            values.update(body)
            values.pop('force', None)
            values['flavors'] = [self.flavors.lookup(f)['id']
                                 for f in values['flavors']]
            return self.windows.add(**values)
        return self._crud(self.windows, method, rest, params, body,
                          create=create)

    def _allocations(self, method, rest, params, body):
        if not rest:
            # lease_reservation_id from 1.2, reservation_id before it.
            params = fake_names.read(params, self.version(),
                                     fake_names.ALLOCATION,
                                     fake_names.unknown_param)
        return self._crud(self.allocations, method, rest, params, body)

    def _devices(self, method, rest, params, body):
        if method != 'GET':
            raise ApiError(405, 'read only', 'reserve.method_not_allowed')
        params = dict(params)
        with_vfs = params.pop('include_vfs', 'false') == 'true'
        if params.pop('spot', 'false') == 'true':
            fake_spot.check_version(self, '/v1/devices')
            params['state'] = 'spot'
        answer = self._crud(self.devices, method, rest, params, body)
        if not rest and not with_vfs:
            # As the API does: virtual functions only when asked for.
            body = answer.json()
            body['devices'] = [d for d in body['devices']
                               if not d.get('physical_function')]
            answer = FakeResponse(answer.status_code, body)
        return answer

    def _device_reservation_action(self, item, action, body):
        """POST /v1/device-reservations/{id}/affirm, attach or detach."""
        coll = self.device_reservations
        if action == 'affirm':
            if item['status'] != 'needs-review':
                raise ApiError(409, 'Device reservation %s is %s' % (
                    item['id'], item['status']), 'reserve.invalid_state')
            item['status'] = 'active'
        elif action == 'attach':
            body = fake_names.read(body, self.version(),
                                   fake_names.DEVICE_RESERVATION,
                                   fake_names.unknown_field)
            domain = body['domain']
            if domain not in item.setdefault('domains', []):
                item['domains'].append(domain)
            by_id = {d['id']: d for d in item.get('devices') or []}
            item.setdefault('attachments', []).extend(
                {'domain': domain, 'device_id': device_id,
                 'pci_address': by_id.get(device_id, {}).get('pci_address'),
                 'kind': 'pci', 'state': 'planned'}
                for device_id in body.get('device_ids')
                or item.get('device_ids') or [])
        elif action == 'detach':
            item['domains'] = [d for d in item.get('domains') or []
                               if d != body['domain']]
            item['attachments'] = [a for a in item.get('attachments') or []
                                   if a['domain'] != body['domain']]
        else:
            raise ApiError(404, 'The resource could not be found.')
        return FakeResponse(200, {coll.key: coll.show(item)})

    def _device_reservation_body(self, body):
        """A creation's body under the names of 1.2 (each version refuses
        the other's names, and asks for one of the two ways)."""
        body = fake_names.read(body, self.version(),
                               fake_names.DEVICE_RESERVATION,
                               fake_names.unknown_field)
        if ('device_ids' in body) == ('device_count' in body):
            ids, count = (fake_names.name_at(
                name, self.version(), fake_names.DEVICE_RESERVATION)
                for name in ('device_ids', 'device_count'))
            raise ApiError(400, "give either '%s' (specific devices) or "
                           "'%s' (a number of devices of a model), not %s" %
                           (ids, count, 'both' if 'device_count' in body
                            else 'neither'))
        return body

    def _dry_run(self, body):
        device_ids = body.get('device_ids') or [
            'u%d' % (i + 1) for i in range(body['device_count'])]
        devices = [{'id': d, 'pci_address': '0000:%02x:00.0' % (i + 0x3b),
                    'model': body.get('model') or 'A100 SXM4 80GB',
                    'numa_node': 0} for i, d in enumerate(device_ids)]
        return FakeResponse(200, {'dry_run': fake_names.shown({
            'fits': True, 'host_id': 'h-gpu-a100-01', 'host': 'gpu-a100-01',
            'device_ids': device_ids, 'devices': devices,
            'attachments': [], 'start': body.get('start'),
            'end': body.get('end')}, self.version(),
            fake_names.DEVICE_RESERVATION)})

    def _device_reservations(self, method, rest, params, body):
        if len(rest) == 2 and method == 'POST':
            return self._device_reservation_action(
                self.device_reservations.lookup(rest[0]), rest[1], body)
        dry_run = False
        if not rest and method == 'POST':
            dry_run = params.pop('dry_run', None) == 'true'
            body = self._device_reservation_body(body)
        if dry_run:
            return self._dry_run(body)

        def create(body):
            fake_device_refusals.check_create(self, body)
            values = dict(
                project_id='project-a', user_id='alice', host='gpu-a100-01',
                allowed_projects=['project-a'], managing_projects=[],
                device_ids=body.get('device_ids', []), devices=[],
                status='pending', status_reason=None, start='now',
                end=None, domains=[], attachments=[], contract_ref=None,
                reason=None, request=dict(body))
            values.update({k: v for k, v in body.items()
                           if k in ('allowed_projects', 'managing_projects',
                                    'start', 'end', 'domains',
                                    'contract_ref', 'reason')})
            return self.device_reservations.add(**values)

        def update(item, body):
            if 'domains' in body and len(body) > 1:
                raise ApiError(400, "change 'domains' on their own")
            fake_device_refusals.check_later_end(self, item, body)
            item.update(body)
        return self._crud(self.device_reservations, method, rest, params,
                          body, create=create, update=update)

    def _limits(self, method, rest, params, body):
        project = params.get('project_id', 'project-a')
        return FakeResponse(200, {'limits': {
            'project_id': project, 'driver': 'config',
            'resources': fake_names.shown(self.limits.get(project, {}),
                                          self.version(),
                                          fake_names.LIMITS)}})


class FakeSession:
    """The keystoneauth Session surface the client uses."""

    def __init__(self, api=None, endpoint=ENDPOINT):
        self.api = api if api is not None else FakeReserveAPI()
        self.endpoint = endpoint
        self.endpoint_requests = []

    def get_endpoint(self, **kwargs):
        self.endpoint_requests.append(kwargs)
        if self.endpoint is None:
            raise ks_exceptions.EndpointNotFound('no reserve endpoint')
        return self.endpoint

    def request(self, url, method, headers=None, params=None, json=None,
                raise_exc=True):
        if not url.startswith(ENDPOINT):
            raise ks_exceptions.ConnectFailure('cannot reach %s' % url)
        return self.api(method, url[len(ENDPOINT):], headers or {}, params,
                        json)

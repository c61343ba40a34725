"""The HTTP client: endpoint, version header, errors, paging, lookups."""
import pytest

from reserveclient import exceptions
from reserveclient.tests.unit import fakes
from reserveclient.v1 import client as reserve_client
from reserveclient.v1 import httpclient


def make(api=None, **kwargs):
    session = fakes.FakeSession(api if api is not None
                                else fakes.FakeReserveAPI())
    return reserve_client.Client(session, **kwargs), session


class TestEndpoint:

    def test_catalog_lookup_uses_service_type_interface_region(self):
        client, session = make(interface='internal', region_name='RegionX')
        client.reservations.list()
        assert session.endpoint_requests == [{
            'service_type': 'reserve', 'interface': 'internal',
            'region_name': 'RegionX'}]
        # The versions of the server first, once.
        assert [r.url for r in session.api.requests] == [
            '/v1', '/v1/reservations']

    def test_override_skips_the_catalog_and_drops_v1(self):
        client, session = make(endpoint_override=fakes.ENDPOINT + '/v1/')
        client.hosts.list()
        assert session.endpoint_requests == []
        assert [r.url for r in session.api.requests] == ['/v1', '/v1/hosts']

    def test_no_endpoint_says_how_to_set_one(self):
        client, session = make()
        session.endpoint = None
        with pytest.raises(exceptions.EndpointNotFound) as err:
            client.reservations.list()
        assert 'OS_RESERVE_URL' in str(err.value)
        assert "service type 'reserve'" in str(err.value)

    def test_unreachable_endpoint(self):
        client, _ = make(endpoint_override='http://127.0.0.1:1')
        with pytest.raises(exceptions.ConnectionFailed) as err:
            client.reservations.list()
        assert 'Unable to reach the reserve API at http://127.0.0.1:1' in \
            str(err.value)


class TestVersions:

    def test_header_on_every_request(self):
        client, session = make()
        client.reservations.list()
        discovery, listing = session.api.requests
        assert 'OpenStack-API-Version' not in discovery.headers
        # The newest this client knows, which the server offers.
        assert listing.headers['OpenStack-API-Version'] == 'reserve 1.7'
        assert listing.headers['Accept'] == 'application/json'
        assert client.api_version == httpclient.MAX_VERSION == '1.7'

    def test_a_server_of_1_0_is_spoken_to_in_1_0(self):
        client, session = make(fakes.FakeReserveAPI(max_version='1.0'))
        client.reservations.list()
        assert session.api.requests[-1].headers[
            'OpenStack-API-Version'] == 'reserve 1.0'
        assert client.api_version == '1.0'

    def test_pinned_1_0_is_not_negotiated(self):
        client, session = make(api_version='1.0')
        client.reservations.list()
        assert [r.url for r in session.api.requests] == ['/v1/reservations']
        assert session.api.requests[0].headers[
            'OpenStack-API-Version'] == 'reserve 1.0'

    def test_pinned_version_is_sent_as_is(self):
        client, session = make(fakes.FakeReserveAPI(max_version='1.4'),
                               api_version='1.3')
        client.reservations.list()
        assert [r.url for r in session.api.requests] == ['/v1/reservations']
        assert session.api.requests[0].headers[
            'OpenStack-API-Version'] == 'reserve 1.3'

    def test_negotiates_newest_common_version(self, monkeypatch):
        monkeypatch.setattr(httpclient, 'MAX_VERSION', '1.4')
        api = fakes.FakeReserveAPI(max_version='1.2')
        client, session = make(api)
        client.reservations.list()
        client.reservations.list()
        assert [r.url for r in api.requests] == [
            '/v1', '/v1/reservations', '/v1/reservations']
        assert 'OpenStack-API-Version' not in api.requests[0].headers
        assert api.requests[1].headers['OpenStack-API-Version'] == \
            'reserve 1.2'
        assert client.api_version == '1.2'

    def test_negotiation_caps_at_the_client_maximum(self, monkeypatch):
        monkeypatch.setattr(httpclient, 'MAX_VERSION', '1.1')
        client, _ = make(fakes.FakeReserveAPI(max_version='1.9'))
        assert client.api_version == '1.1'

    def test_failed_discovery_falls_back_to_the_minimum(self, monkeypatch):
        monkeypatch.setattr(httpclient, 'MAX_VERSION', '1.1')
        client, session = make()
        session.api._route = lambda *a: fakes._error(404, 'gone')
        assert client.api_version == '1.0'

    def test_require_version(self):
        client, _ = make(api_version='1.0')
        client.http.require_version('1.0', 'anything')
        with pytest.raises(exceptions.UnsupportedVersion) as err:
            client.http.require_version('1.5', 'device list')
        assert 'device list needs version 1.5' in str(err.value)

    @pytest.mark.parametrize('bad', ['2', '1.x', 'latest', ''])
    def test_bad_versions(self, bad):
        with pytest.raises((ValueError, exceptions.UnsupportedVersion)):
            make(api_version=bad)


class TestErrors:

    def test_api_error_keeps_detail_code_and_request_id(self):
        client, _ = make()
        with pytest.raises(exceptions.NotFound) as err:
            client.reservations.get('nope')
        error = err.value
        assert error.status == 404
        assert error.code == 'reserve.not_found'
        assert error.request_id == 'req-fake'
        assert str(error) == ('Reservation nope could not be found. '
                              '(HTTP 404, reserve.not_found, request '
                              'req-fake)')

    @pytest.mark.parametrize('status,cls', [
        (400, exceptions.BadRequest), (401, exceptions.Unauthorized),
        (403, exceptions.Forbidden), (409, exceptions.Conflict),
        (413, exceptions.OverLimit), (406, exceptions.NotAcceptable),
        (500, exceptions.HttpError)])
    def test_status_classes(self, status, cls):
        response = fakes._error(status, 'why', code='reserve.x')
        error = exceptions.from_response(response)
        assert type(error) is cls
        assert error.detail == 'why'

    def test_foreign_json_body(self):
        response = fakes.FakeResponse(
            401, {'error': {'message': 'The request you have made requires '
                                       'authentication.'}},
            headers={'x-openstack-request-id': 'req-9'})
        error = exceptions.from_response(response)
        assert str(error) == ('The request you have made requires '
                              'authentication. (HTTP 401, request req-9)')

    def test_html_body_uses_the_reason(self):
        response = fakes.FakeResponse(
            502, text='<html><body>Bad gateway</body></html>',
            reason='Bad Gateway')
        assert str(exceptions.from_response(response)) == \
            'Bad Gateway (HTTP 502)'

    def test_errors_are_command_errors(self):
        from osc_lib import exceptions as osc_exceptions
        assert issubclass(exceptions.HttpError,
                          osc_exceptions.CommandError)


def _listings(api):
    """The requests after the discovery of the versions."""
    return [r for r in api.requests if r.url != '/v1']


class TestPaging:

    def _api(self, count, max_limit=2):
        api = fakes.FakeReserveAPI(max_limit=max_limit)
        for i in range(count):
            api.reservations.add(id='r%d' % i, status='ACTIVE')
        return api

    def test_follows_every_page(self):
        api = self._api(5)
        client, _ = make(api)
        items = client.reservations.list(all_projects=True)
        assert [i['id'] for i in items] == ['r0', 'r1', 'r2', 'r3', 'r4']
        assert [r.params for r in _listings(api)] == [
            {'all_projects': 'true'},
            {'all_projects': 'true', 'limit': '2', 'marker': 'r1'},
            {'all_projects': 'true', 'limit': '2', 'marker': 'r3'}]

    def test_limit_is_one_page_when_the_server_allows(self):
        api = self._api(5, max_limit=10)
        client, _ = make(api)
        items = client.reservations.list(limit=3)
        assert [i['id'] for i in items] == ['r0', 'r1', 'r2']
        assert [r.params for r in _listings(api)] == [{'limit': 3}]

    def test_limit_above_the_server_page_size(self):
        api = self._api(5, max_limit=2)
        client, _ = make(api)
        items = client.reservations.list(limit=3)
        assert [i['id'] for i in items] == ['r0', 'r1', 'r2']
        assert len(_listings(api)) == 2

    def test_marker(self):
        client, _ = make(self._api(5, max_limit=10))
        items = client.reservations.list(marker='r2')
        assert [i['id'] for i in items] == ['r3', 'r4']

    def test_a_next_link_that_repeats_stops(self):
        api = fakes.FakeReserveAPI()
        page = {'reservations': [{'id': 'x'}], 'links': [
            {'rel': 'next', 'href': 'http://h/v1/reservations?marker=x'}]}
        api._route = lambda *a: fakes.FakeResponse(200, page)
        client, _ = make(api, api_version='1.4')
        assert len(client.reservations.list()) == 2
        assert len(api.requests) == 2


class TestLookups:

    def test_flavor_by_id_or_name_goes_to_the_item(self, api):
        flavor = api.flavors.add(name='gpu.a100')
        client, _ = make(api)
        assert client.flavors.get(flavor['id'])['name'] == 'gpu.a100'
        assert client.flavors.get('gpu.a100')['id'] == flavor['id']
        # The versions of the server are asked once (a show asks for 1.4
        # when the server has it).
        assert [r.url for r in api.requests] == [
            '/v1', '/v1/flavors/%s' % flavor['id'], '/v1/flavors/gpu.a100']

    def test_lease_by_name(self, api):
        lease = api.leases.add(name='Reservation rsv-1', reservations=[])
        client, _ = make(api)
        assert client.leases.find('Reservation rsv-1')['id'] == lease['id']
        assert client.leases.find('rsv-1')['id'] == lease['id']
        with pytest.raises(exceptions.NotFound):
            client.leases.find('rsv-2')

    def test_lease_by_booking(self, api):
        lease = api.leases.add(name='other', reservations=[])
        booking = api.reservations.add(lease_id=lease['id'])
        client, _ = make(api)
        assert client.leases.find(booking['id'])['id'] == lease['id']

    def test_lease_by_inner_reservation(self, api):
        lease = api.leases.add(name='x', reservations=[{'id': 'lr-7'}])
        client, _ = make(api)
        assert client.leases.find('lr-7')['id'] == lease['id']

    def test_lease_lookup_as_a_member(self, api):
        api.member_only = True
        lease = api.leases.add(name='Reservation rsv-1', reservations=[])
        client, _ = make(api)
        assert client.leases.find('rsv-1')['id'] == lease['id']

    def test_lease_ambiguous(self, api):
        api.leases.add(id='l1', name='x', reservations=[{'id': 'a'}])
        api.leases.add(id='l2', name='a', reservations=[])
        client, _ = make(api)
        with pytest.raises(exceptions.ReserveClientError) as err:
            client.leases.find('a')
        assert 'l1, l2' in str(err.value)

    def test_refs_are_quoted(self, api):
        client, _ = make(api)
        with pytest.raises(exceptions.NotFound):
            client.hosts.get('a/b c')
        assert api.requests[-1].url == '/v1/hosts/a%2Fb%20c'


class TestNames:
    """The managers take the names of API 1.2 and send the names of the
    version spoken; answers come back as the server gave them."""

    def _reservation(self, api):
        return api.device_reservations.add(
            status='active', device_ids=['d1', 'd2'], domains=[],
            attachments=[], devices=[
                {'id': 'd1', 'pci_address': '0000:17:00.0'},
                {'id': 'd2', 'pci_address': '0000:31:00.0'}])

    @pytest.mark.parametrize('version,ids,attachment', [
        ('1.4', 'device_ids', 'device_id'), ('1.2', 'device_ids',
                                             'device_id'),
        ('1.1', 'unit_ids', 'unit_id'), ('1.0', 'unit_ids', 'unit_id')])
    def test_attach(self, api, version, ids, attachment):
        rsv = self._reservation(api)
        client, _ = make(api, api_version=version)
        shown = client.device_reservations.attach(rsv['id'], 'vm1', ['d2'])
        assert api.requests[-1].body == {'domain': 'vm1', ids: ['d2']}
        assert [a[attachment] for a in shown['attachments']] == ['d2']
        assert shown[ids] == ['d1', 'd2']

    def test_the_server_refuses_the_names_of_another_version(self, api):
        client, _ = make(api, api_version='1.2')
        with pytest.raises(exceptions.BadRequest) as err:
            client.http.post('/v1/device-reservations', {'count': 1})
        assert "unknown field 'count'" in str(err.value)
        with pytest.raises(exceptions.BadRequest):
            client.http.get('/v1/allocations', {'reservation_id': 'r1'})

    @pytest.mark.parametrize('version,param', [
        ('1.4', 'lease_reservation_id'), ('1.1', 'reservation_id')])
    def test_allocation_filter(self, api, version, param):
        api.allocations.add(lease_reservation_id='r1', amount=1)
        api.allocations.add(lease_reservation_id='r2', amount=1)
        client, _ = make(api, api_version=version)
        found = client.allocations.list(lease_reservation_id='r2')
        assert api.requests[-1].params == {param: 'r2'}
        assert [a[param] for a in found] == ['r2']

    def test_one_name(self, api):
        from reserveclient.v1 import names
        client, _ = make(api)
        assert names.one_name(client.http)
        assert not names.one_name(client.http, '1.1')
        assert names.name(client.http, names.DEVICE, 'device_reservation_id',
                          '1.0') == 'reservation_id'
        old, _ = make(fakes.FakeReserveAPI(max_version='1.1'))
        assert not names.one_name(old.http)
        assert names.sent(old.http, names.DEVICE_RESERVATION, {
            'device_count': 2, 'model': 'T4'}) == {'count': 2, 'model': 'T4'}

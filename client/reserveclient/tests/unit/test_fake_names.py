"""The API double names fields as the server does at each microversion,
and so does the client: their tables against the server's views, when
the server's code is at hand (a checkout of the whole repository);
skipped otherwise."""
import types

import pytest

from reserveclient.tests.unit import fake_calendar
from reserveclient.tests.unit import fake_device_refusals
from reserveclient.tests.unit import fake_names
from reserveclient.tests.unit import fake_offers
from reserveclient.tests.unit import fake_series
from reserveclient.tests.unit import fake_sharing
from reserveclient.v1 import httpclient
from reserveclient.v1 import names
from reserveclient.v1 import series

microversion = pytest.importorskip('reserve.api.microversion')
server_schema = pytest.importorskip('reserve.api.schemas.device_reservations')
server_views = types.SimpleNamespace(**{
    name: pytest.importorskip('reserve.api.views.%s' % name)
    for name in ('allocations', 'devices', 'leases', 'limits',
                 'reservations')})
server_states = pytest.importorskip('reserve.common.states')
device_states = pytest.importorskip('reserve.devices.states')

VERSIONS = [microversion.Version.parse(v) for v in microversion.VERSIONS]


class Row(types.SimpleNamespace):
    """A database row: a column not given is NULL."""

    def __getattr__(self, name):
        return None


@pytest.fixture
def serve(monkeypatch):
    """serve(version, view, *args): the server's view at ``version``."""
    def at(version, view, *args):
        monkeypatch.setattr(microversion, 'serves',
                            lambda wanted: version >= wanted)
        return view(*args)
    return at


def _each_version(serve, view, args, fake_view):
    """The double shows, at every version, what the server shows: the
    server's view at 1.2 (the double's names) as the double shows it."""
    kept = serve(microversion.ONE_NAME, view, *args)
    for version in VERSIONS:
        assert fake_view(dict(kept), tuple(version)) == \
            serve(version, view, *args), version


def test_the_double_knows_every_version():
    assert microversion.STANDBY == microversion.Version(*fake_names.STANDBY)
    assert microversion.SERIES == microversion.Version(*fake_names.SERIES)
    assert microversion.SERIES == microversion.Version(*fake_series.VERSION)
    assert microversion.SERIES == microversion.Version.parse(
        series.SERIES_VERSION)
    assert microversion.SHARING == microversion.Version(
        *fake_sharing.SHARING)
    assert microversion.OFFERS == microversion.Version(*fake_offers.VERSION)
    assert VERSIONS[-1] == microversion.Version(
        *fake_device_refusals.DEVICE_COUNTER_OFFER)
    assert microversion.DEVICE_COUNTER_OFFER == microversion.Version(
        *fake_device_refusals.DEVICE_COUNTER_OFFER)
    assert microversion.COUNTER_OFFER == microversion.Version(
        *fake_names.COUNTER_OFFER)
    assert microversion.CALENDAR == microversion.Version(
        *fake_calendar.VERSION)
    assert microversion.SPOT == microversion.Version(*fake_names.SPOT)
    assert microversion.ONE_NAME == microversion.Version(
        *fake_names.ONE_NAME)
    assert microversion.PLAYBOOK == microversion.Version(
        *fake_names.PLAYBOOK)


def test_reservation(serve):
    booking = Row(id='b1', flavor_id='f1', instance_count=2,
                  status='ALLOCATED', reserved_flavor_id='lr-1')
    _each_version(serve, server_views.reservations.reservation_view,
                  (booking,), lambda view, version: fake_names.reservation(
                      view, version, one=False, method='GET'))


def test_allocation(serve):
    row = (Row(id='a1', host_id='h1', amount=2, booking_id='b1'),
           Row(id='lr-1', resource_type='flavor:instance'),
           Row(id='l1', project_id='p1', status='ACTIVE'))
    _each_version(serve, server_views.allocations.allocation_view, row,
                  lambda view, version: fake_names.shown(
                      view, version, fake_names.ALLOCATION))


def test_lease_reservation_and_its_allocations(serve):
    reservation = Row(
        id='lr-1', resource_type=server_states.FLAVOR_INSTANCE,
        status=server_states.LeaseReservation.ACTIVE, amount=2,
        allocations=[Row(host_id='h1', amount=2)])
    _each_version(
        serve, server_views.leases.lease_reservation_view, (reservation,),
        lambda view, version: fake_names.lease(
            {'reservations': [view]}, version)['reservations'][0])


def test_device(serve):
    device = Row(id='d1', pci_address='0000:3b:00.0', product_name='A100')
    args = (device, device_states.DeviceShown.RESERVED, Row(id='dr-1'))
    _each_version(serve, server_views.devices.device_view, args,
                  lambda view, version: fake_names.shown(
                      view, version, fake_names.DEVICE))


def test_limits(serve):
    resources = {name: {'limit': 10, 'in_use': 1} for name in (
        'reservations', 'instance_hours', 'device_reservations',
        'device_hours')}

    def view(resources):
        return server_views.limits.limits_view(
            'p1', Row(name='config'), resources)['limits']['resources']
    _each_version(serve, view, (resources,),
                  lambda view, version: fake_names.shown(
                      view, version, fake_names.LIMITS))


def test_device_reservation_names():
    assert fake_names.DEVICE_RESERVATION == server_schema._BEFORE_ONE_NAME


def test_the_client_knows_the_server():
    """The client's tables and versions are the server's too."""
    assert httpclient.MAX_VERSION == microversion.VERSIONS[-1]
    assert httpclient.MIN_VERSION == microversion.VERSIONS[0]
    assert names.ONE_NAME == str(microversion.ONE_NAME)
    for table in ('RESERVATION', 'ALLOCATION', 'DEVICE',
                  'DEVICE_RESERVATION'):
        assert getattr(names, table) == getattr(fake_names, table), table

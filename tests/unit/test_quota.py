"""reserve.booking.quota: what counts, and both drivers."""
import datetime

from oslo_limit import fixture as limit_fixture
from oslo_limit import limit
import pytest

from reserve.booking import quota
from reserve.common import context as reserve_context
from reserve.common import exception
from reserve.common import states
from reserve.devices import states as device_states
from tests.unit import factories

B = states.Booking


def ctx():
    return reserve_context.get_admin_context()


T0 = datetime.datetime(2031, 1, 1)
H = datetime.timedelta(hours=1)


def test_instance_hours_count_every_started_hour():
    assert quota.instance_hours(1, T0, T0 + H) == 1
    assert quota.instance_hours(3, T0, T0 + H) == 3
    assert quota.instance_hours(2, T0, T0 + H + datetime.timedelta(
        seconds=1)) == 4
    assert quota.instance_hours(2, T0, T0 + datetime.timedelta(
        minutes=1)) == 2


def test_device_hours_count_started_hours_and_an_open_end(override):
    override('open_ended_hours', 10, group='quota')
    assert quota.device_hours(2, T0, T0 + H + datetime.timedelta(
        minutes=30)) == 4
    # T0 is ahead: an open end counts open_ended_hours from the start.
    assert quota.new_device_reservation(3, T0, None) == {
        'device_reservations': 1, 'device_hours': 30}
    assert quota.device_hours(1, T0, device_states.OPEN_END) == 10


def test_an_open_end_keeps_counting_what_it_has_run(override):
    """Held open-ended for 100 hours and a half: the 100 whole hours it
    has run, and open_ended_hours more."""
    override('open_ended_hours', 10, group='quota')
    now = T0 + 100 * H + datetime.timedelta(minutes=30)
    assert quota.device_hours(2, T0, None, now=now) == 2 * (100 + 10)
    assert quota.device_hours(2, T0, None, now=T0 + H / 2) == 2 * 10
    assert quota.device_hours(2, T0, device_states.OPEN_END,
                              now=T0 - H) == 20


def test_device_usage_is_reported_beside_the_bookings(db, override):
    assert set(quota.REPORTED) == set(quota.RESOURCES) | {
        'device_hours', 'device_reservations'}
    assert 'device_hours' not in quota.RESOURCES
    assert quota.usage(ctx(), 'project-a', ['device_hours']) == {
        'device_hours': 0}
    override('device_hours', 5, group='quota')
    with pytest.raises(exception.OverQuota) as caught:
        quota.enforce(ctx(), 'project-a', {'device_hours': 6})
    assert 'device_hours (0 in use + 6 asked > limit 5)' in \
        caught.value.message


def test_what_a_new_booking_adds():
    assert quota.new_booking(2, T0, T0 + 3 * H) == {'reservations': 1,
                                                    'instance_hours': 6}


@pytest.mark.parametrize('old,new,added', [
    (3 * H, 5 * H, {'instance_hours': 4}),
    (3 * H, 3 * H + datetime.timedelta(minutes=30), {'instance_hours': 2}),
    (3 * H + datetime.timedelta(minutes=10),
     3 * H + datetime.timedelta(minutes=50), {}),    # same started hour
    (3 * H, 2 * H, {}),                              # shorter
])
def test_moving_the_end_adds_only_the_added_hours(old, new, added):
    assert quota.new_end(2, T0, T0 + old, T0 + new) == added


def test_usage_counts_only_live_bookings(db):
    for status in B.ALL:
        factories.make_booking(status=status, instance_count=2,
                               start=T0, end=T0 + 2 * H)
    factories.make_booking(project_id='project-b', start=T0,
                           end=T0 + H)
    assert quota.usage(ctx(), 'project-a') == {'reservations': 3,
                                               'instance_hours': 12}
    assert quota.usage(ctx(), 'project-b') == {'reservations': 1,
                                               'instance_hours': 1}
    assert quota.usage(ctx(), 'project-c') == {'reservations': 0,
                                               'instance_hours': 0}


# The config driver -----------------------------------------------------------

def test_config_driver_enforces_the_section(db, override):
    override('reservations', 2, group='quota')
    override('instance_hours', -1, group='quota')
    factories.make_booking(start=T0, end=T0 + 100 * H)
    quota.enforce(ctx(), 'project-a', {'reservations': 1,
                                       'instance_hours': 10 ** 6})
    factories.make_booking(start=T0, end=T0 + H)
    with pytest.raises(exception.OverQuota) as caught:
        quota.enforce(ctx(), 'project-a', {'reservations': 1})
    assert caught.value.code == 413
    assert 'reservations (2 in use + 1 asked > limit 2)' in \
        caught.value.message


def test_config_driver_reads_nothing_when_unlimited(db, override,
                                                    monkeypatch):
    override('reservations', -1, group='quota')
    override('instance_hours', -1, group='quota')
    monkeypatch.setattr(quota, 'usage', pytest.fail)
    quota.enforce(ctx(), 'project-a', {'reservations': 1,
                                       'instance_hours': 5})


def test_recheck_allows_being_at_the_limit_not_over(db, override):
    override('reservations', 1, group='quota')
    override('recheck_quota', True, group='quota')
    factories.make_booking()
    quota.recheck(ctx(), 'project-a', ['reservations'])
    factories.make_booking()
    with pytest.raises(exception.OverQuota):
        quota.recheck(ctx(), 'project-a', ['reservations'])
    override('recheck_quota', False, group='quota')
    quota.recheck(ctx(), 'project-a', ['reservations'])


def test_config_report(db, override):
    override('instance_hours', 50, group='quota')
    factories.make_booking(instance_count=4, start=T0, end=T0 + 2 * H)
    assert quota.report(ctx(), 'project-a') == {
        'reservations': {'limit': 10, 'in_use': 1},
        'instance_hours': {'limit': 50, 'in_use': 8},
        'device_reservations': {'limit': 10, 'in_use': 0},
        'device_hours': {'limit': 1440, 'in_use': 0}}


# The unified limits driver ---------------------------------------------------

@pytest.fixture
def keystone(db, override):
    """Keystone's limits, as oslo.limit's own fixture serves them."""
    override('driver', 'unified_limits', group='quota')
    override('endpoint_id', 'reserve-endpoint', group='oslo_limit')
    fixture = limit_fixture.LimitFixture(
        {'reservations': 3, 'instance_hours': 20},
        {'project-big': {'reservations': 100, 'instance_hours': 1000},
         'project-none': {'instance_hours': -1}})
    fixture.setUp()
    yield fixture
    fixture.cleanUp()


def test_unified_limits_enforce_registered_limits(keystone):
    factories.make_booking(instance_count=2, start=T0, end=T0 + 5 * H)
    quota.enforce(ctx(), 'project-a', {'reservations': 1,
                                       'instance_hours': 10})
    with pytest.raises(exception.OverQuota) as caught:
        quota.enforce(ctx(), 'project-a', {'reservations': 1,
                                           'instance_hours': 11})
    assert 'instance_hours (10 in use + 11 asked > limit 20)' in \
        caught.value.message
    assert 'reservations' not in caught.value.message


def test_unified_limits_per_project_override(keystone):
    for _ in range(3):
        factories.make_booking(project_id='project-big')
    quota.enforce(ctx(), 'project-big', {'reservations': 1,
                                         'instance_hours': 500})
    # -1 is unlimited, as keystone has it.
    quota.enforce(ctx(), 'project-none', {'instance_hours': 10 ** 6})


def test_unified_limits_use_our_usage_callback(keystone, monkeypatch):
    seen = []
    real = quota.usage

    def spy(context, project_id, resources=quota.RESOURCES):
        seen.append((project_id, sorted(resources)))
        return real(context, project_id, resources)

    monkeypatch.setattr(quota, 'usage', spy)
    assert quota.driver().name == 'unified_limits'
    quota.enforce(ctx(), 'project-a', {'reservations': 1})
    assert seen == [('project-a', ['reservations'])]


def test_unified_limits_report(keystone):
    factories.make_booking(project_id='project-big', instance_count=3,
                           start=T0, end=T0 + H)
    assert quota.report(ctx(), 'project-big') == {
        'reservations': {'limit': 100, 'in_use': 1},
        'instance_hours': {'limit': 1000, 'in_use': 3},
        # Not registered in keystone: a limit of 0, as oslo.limit has it.
        'device_reservations': {'limit': 0, 'in_use': 0},
        'device_hours': {'limit': 0, 'in_use': 0}}


def test_unified_limits_unreachable_keystone_is_503(db, override,
                                                    monkeypatch):
    override('driver', 'unified_limits', group='quota')

    def no_keystone(*args, **kwargs):
        raise ValueError('Either service_type or service_name should be '
                         'set')

    monkeypatch.setattr(limit, 'Enforcer', no_keystone)
    with pytest.raises(exception.QuotaUnavailable) as caught:
        quota.enforce(ctx(), 'project-a', {'reservations': 1})
    assert caught.value.code == 503
    assert 'service_type' in caught.value.message

"""device_counter_offer.search and latest_end against a search minute by
minute: over devices held by random reservations, the latest start
before the refused one and the earliest after it at which the request
is selected, the most devices that fit, and the latest end a
reservation's devices stay free until. The devices are seen through
holds.devices_within's contract (over(s, e): the devices, each blocked
by the reservations overlapping [s, e)), the selection is the real
one."""
import dataclasses
import datetime
import types

from hypothesis import assume
from hypothesis import given
from hypothesis import HealthCheck
from hypothesis import settings
from hypothesis import strategies as st
import pytest

from reserve.booking import device_counter_offer
from reserve.common import exception
from reserve.devices import holds
from reserve.devices import selection
from reserve.devices import states

NOW = datetime.datetime(2030, 1, 1)
# Each device: (id, NUMA node).
DEVICES = (('d0', 0), ('d1', 0), ('d2', 1))
HORIZON = 400                   # minutes the holds lie in


def _at(minutes):
    return NOW + datetime.timedelta(minutes=minutes)


def _device(device_id, node, blocked):
    return selection.Device(
        id=device_id, host_id='h', host='gpu-box', pci_address=device_id,
        model='A100', vendor_id='0x10de', product_id='0x20b2',
        numa_node=node, is_vf=False, related=frozenset(), mdev_types={},
        blocked=blocked)


def _over(held):
    """devices_over's answer of ``held`` ([(device id, reservation)])."""
    def over(start, end):
        return [_device(device_id, node, next(
            ('held' for d, r in held if d == device_id and
             r.start < end and r.end > start), None))
            for device_id, node in DEVICES]
    return over


# Each example sets the fixture's holds first: it is not reset between
# them, and need not be.
# The tests assume a refused window, which most drawn ones are not.
EACH = settings(suppress_health_check=[HealthCheck.function_scoped_fixture,
                                       HealthCheck.filter_too_much])


@pytest.fixture
def cloud(monkeypatch):
    found = types.SimpleNamespace(held=[])

    def within(context, start, end, viewer=None, host_ids=None,
               exclude=None):
        held = [(d, r) for d, r in found.held
                if r.id != exclude and r.start < end and r.end > start]
        return _over(held), list({r.id: r for _, r in held}.values())
    monkeypatch.setattr(holds, 'devices_within', within)
    return found


holds_drawn = st.lists(
    st.tuples(st.sampled_from([d for d, _ in DEVICES]),
              st.integers(0, HORIZON - 10), st.integers(10, 120)),
    max_size=8)
requests = st.one_of(
    st.builds(lambda n, local: selection.Request(
        device_count=n, model='A100', numa_local=local),
        st.integers(1, 3), st.booleans()),
    st.builds(lambda ids: selection.Request(device_ids=tuple(ids)),
              st.lists(st.sampled_from([d for d, _ in DEVICES]),
                       min_size=1, max_size=3, unique=True)))


def _reservations(drawn):
    return [(device, types.SimpleNamespace(id='r%d' % i, start=_at(s),
                                           end=_at(s + n)))
            for i, (device, s, n) in enumerate(drawn)]


def _fits(over, request, start, end):
    try:
        selection.select(over(start, end), request)
    except exception.Conflict:
        return False
    return True


@EACH
@given(holds_drawn, requests, st.integers(1, HORIZON), st.integers(10, 120))
def test_the_nearest_windows_and_the_most(cloud, drawn, request, asked,
                                          minutes):
    cloud.held = _reservations(drawn)
    over = _over(cloud.held)
    start, end = _at(asked), _at(asked + minutes)
    assume(not _fits(over, request, start, end))
    offer = device_counter_offer.search(None, request, start, end, None,
                                        NOW)
    length = end - start
    starts = [_at(m) for m in range(0, HORIZON + 200)]
    earlier = [s for s in starts if s < start and
               _fits(over, request, s, s + length)]
    later = [s for s in starts if s > start and
             _fits(over, request, s, s + length)]
    assert offer['before'] == (
        (max(earlier), max(earlier) + length) if earlier else None)
    assert offer['after'] == (
        (min(later), min(later) + length) if later else None)
    # The most that fit: the largest count that is selected, or how many
    # of the devices named are.
    if request.device_ids:
        most = sum(_fits(over, selection.Request(device_ids=(d,)), start,
                         end) for d in request.device_ids)
    else:
        most = max([n for n in range(1, 4) if _fits(
            over, dataclasses.replace(request, device_count=n), start,
            end)], default=0)
    assert offer['most'] == most
    assert most < (request.device_count or len(request.device_ids))


@EACH
@given(holds_drawn, st.integers(1, 3), st.integers(0, 200),
       st.integers(10, 120))
def test_an_open_ended_request_is_offered_open_ended(cloud, drawn, count,
                                                     asked, minutes):
    cloud.held = _reservations(drawn)
    over = _over(cloud.held)
    request = selection.Request(device_count=count, model='A100')
    start = _at(asked)
    assume(not _fits(over, request, start, states.OPEN_END))
    offer = device_counter_offer.search(None, request, start, None, None,
                                        NOW)
    later = [_at(m) for m in range(asked + 1, HORIZON + 200)
             if _fits(over, request, _at(m), states.OPEN_END)]
    assert offer['before'] is None
    assert offer['after'] == ((min(later), None) if later else None)


@EACH
@given(holds_drawn, st.sampled_from([d for d, _ in DEVICES]),
       st.integers(0, 200), st.integers(10, 120), st.integers(1, 300))
def test_the_latest_end(cloud, drawn, device, begins, minutes, more):
    mine = types.SimpleNamespace(
        id='mine', start=_at(begins), end=_at(begins + minutes),
        host_id='h', devices=[types.SimpleNamespace(device_id=device)])
    others = _reservations(drawn)
    over = _over(others)
    request = selection.Request(device_ids=(device,))
    # Its own window is free of the others (it holds its devices).
    assume(_fits(over, request, mine.start, mine.end))
    cloud.held = others + [(device, mine)]
    asked = mine.end + datetime.timedelta(minutes=more)
    assume(not _fits(over, request, mine.start, asked))
    latest = device_counter_offer.latest_end(None, mine, asked, NOW)
    ends = [_at(m) for m in range(begins + minutes + 1,
                                  begins + minutes + more)
            if _fits(over, request, mine.start, _at(m))]
    assert latest == (max(ends) if ends else None)

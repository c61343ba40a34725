"""What a host may lend to spot servers (reserve.spot.budget).

The promise to owners, checked over random hosts: what is lent, plus
what the owners' servers hold, plus the seats each started reservation
may boot at once (its margin), plus the GPUs of bookings starting
within the lead time, never exceeds the host's GPUs.
"""
import datetime

from hypothesis import given
from hypothesis import strategies as st

from reserve.spot import budget

NOW = datetime.datetime(2026, 12, 1, 12, 0)
LEAD = datetime.timedelta(minutes=10)


def _at(minutes):
    return NOW + datetime.timedelta(minutes=minutes)


@st.composite
def hosts(draw):
    """(host GPUs, [Held], {reservation: seats used}) with every booking
    fitting the host, as admission guarantees."""
    held, used, booked = [], {}, 0
    gpus = draw(st.integers(0, 16))
    for index in range(draw(st.integers(0, 5))):
        per_seat = draw(st.integers(1, 4))
        seats = draw(st.integers(1, 4))
        if booked + seats * per_seat > gpus:
            break
        booked += seats * per_seat
        start = draw(st.integers(-120, 60))
        end = start + draw(st.integers(1, 240))
        started = start <= 0 and draw(st.booleans())
        name = 'rsv-%d' % index
        held.append(budget.Held(_at(start), _at(end), seats, per_seat,
                                name, started))
        if started:
            used[name] = draw(st.integers(0, seats))
    return gpus, held, used


def _owed(held, used, margin):
    """GPUs the owners hold, may boot at once, or start with soon."""
    owed = 0
    for h in held:
        if h.end <= NOW or h.start >= NOW + LEAD:
            continue
        if h.started:
            taken = used.get(h.reservation, 0)
            owed += (taken + min(margin, h.seats - taken)) * h.gpus
        else:
            owed += h.seats * h.gpus
    return owed


@given(hosts(), st.integers(0, 3))
def test_what_is_lent_never_takes_what_owners_are_owed(host, margin):
    gpus, held, used = host
    found = budget.of_host(gpus, held, used, NOW, LEAD, margin)
    assert found.idle_seats >= 0 and found.unbooked >= 0
    # Every GPU is either owed or lent: nothing idle is wasted either.
    assert found.lent + _owed(held, used, margin) == gpus


@given(hosts())
def test_an_owner_booting_never_makes_more_to_lend(host):
    gpus, held, used = host
    before = budget.of_host(gpus, held, used, NOW, LEAD, 1).lent
    for name in used:
        seats = next(h.seats for h in held if h.reservation == name)
        more = dict(used, **{name: min(seats, used[name] + 1)})
        assert budget.of_host(gpus, held, more, NOW, LEAD, 1).lent <= before


def test_an_empty_host_lends_all_its_gpus():
    assert budget.of_host(8, [], {}, NOW, LEAD, 1) == budget.Budget(0, 8)


def test_a_reservation_taken_back_lends_nothing_after_its_end():
    ended = budget.Held(_at(-60), _at(0), 2, 1, 'rsv', True)
    assert budget.of_host(4, [ended], {}, NOW, LEAD, 0).lent == 4
    assert budget.of_host(4, [ended], {}, NOW, LEAD, 0,
                          taken_back={'rsv'}).lent == 2


def test_a_booking_within_the_lead_time_takes_its_gpus_back():
    coming = budget.Held(_at(9), _at(60), 3, 1)
    later = budget.Held(_at(11), _at(60), 3, 1)
    assert budget.of_host(4, [coming], {}, NOW, LEAD, 1).lent == 1
    assert budget.of_host(4, [later], {}, NOW, LEAD, 1).lent == 4

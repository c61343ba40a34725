"""reserve.capacity.model.Offer: a placement looks at the hosts only
until they hold the amount, places where maths.place would over the
hosts looked at, and fails exactly when maths.place over every host
does; when idle hosts of the top rank hold the amount it chooses what
maths.place would with every host worked out."""
from hypothesis import given
from hypothesis import settings
from hypothesis import strategies as st

from reserve.capacity import maths
from reserve.capacity import model
from reserve.capacity import store

CAPACITIES = ({'vcpus': 8, 'memory_mb': 8, 'disk_gb': 8},
              {'vcpus': 16, 'memory_mb': 8, 'disk_gb': 8},
              {'vcpus': 4, 'memory_mb': 4, 'disk_gb': 4})


class Board:
    """A lazy board over fixed allocations that records which hosts it was
    asked the allocations of, and which it found idle."""
    span = 10

    def __init__(self, allocations):
        self.allocations, self.asked, self.idle = allocations, [], []

    def allocations_of(self, host_ids, need):
        self.asked.extend(h for h in host_ids if h not in self.asked)
        return {h: self.allocations.get(h, []) for h in host_ids}

    def idle_hosts(self, host_ids, wanted):
        found = [h for h in sorted(host_ids)
                 if not self.allocations.get(h)][:wanted]
        self.idle.extend(found)
        return found


def host(i, capacity):
    return store.HostRecord('host-%02d' % i, 'host-%02d' % i, capacity, {},
                            True, store._key(capacity))


allocations = st.lists(st.builds(
    lambda start, length, count, vcpus, memory: maths.Allocation(
        start, start + length, count,
        {'vcpus': vcpus, 'memory_mb': memory, 'disk_gb': 0}),
    st.integers(0, 10), st.integers(1, 6), st.integers(1, 2),
    st.integers(0, 4), st.integers(0, 4)), min_size=1, max_size=3)


@settings(max_examples=400, deadline=None)
@given(hosts=st.lists(st.tuples(st.sampled_from(CAPACITIES),
                                st.one_of(st.none(), allocations)),
                      min_size=1, max_size=12),
       need=st.fixed_dictionaries({'vcpus': st.integers(1, 4),
                                   'memory_mb': st.integers(0, 2)}),
       amount=st.integers(1, 8),
       affinity=st.sampled_from([None, False, True]))
def test_placing_lazily_places_where_the_hosts_looked_at_hold_it(
        hosts, need, amount, affinity):
    records = [host(i, capacity) for i, (capacity, _) in enumerate(hosts)]
    busy = {records[i].id: c for i, (_, c) in enumerate(hosts) if c}
    board = Board(busy)
    ranked = model.Ranked(records, need)
    offer = model.Offer(board, ranked, need)
    fits = {r.id: maths.least_fit(r.capacity, busy.get(r.id, []), need, 0,
                                  10) for r in records}

    placed = offer.place(amount, affinity)
    everywhere = maths.place(fits, amount, affinity)
    # Admitted exactly when every host together holds it.
    assert (placed is None) == (everywhere is None)
    if placed is not None:
        looked = {h: fits[h] for h in board.asked + board.idle}
        assert placed == maths.place(looked, amount, affinity)
        if affinity is not True and ranked.groups:
            top, ids = ranked.groups[0]
            idle = [h for h in ids if h not in busy]
            wanted = amount if affinity is False else -(-amount // top)
            if len(idle) >= wanted and all(fits[h] < top for h in busy):
                # The idle hosts of the top rank hold it (and no busy one
                # holds as much: what is on it takes something of the
                # need): the choice over every host, without reading an
                # allocation.
                assert placed == everywhere
                assert board.asked == []
    assert offer.fits == fits
    assert offer.total() == sum(fits.values())
    assert offer.most_placed(amount, affinity) == maths.most_placed(
        fits, amount, affinity)


def test_a_busy_host_ranks_by_what_it_really_holds():
    records = [host(i, CAPACITIES[0]) for i in range(6)]
    busy = {'host-00': [maths.Allocation(0, 10, 1, {'vcpus': 4})],
            'host-05': [maths.Allocation(0, 10, 1, {'vcpus': 4})]}
    need = {'vcpus': 2}
    board = Board(busy)
    offer = model.Offer(board, model.Ranked(records, need), need)
    # host-00 ranks first until its allocation is counted (2 left, not 4);
    # host-05 would hold 4 too, but two idle hosts come before it.
    assert offer.place(8) == {'host-01': 4, 'host-02': 4}
    assert offer.place(9) == {'host-01': 4, 'host-02': 4, 'host-03': 1}


def test_a_placement_on_idle_hosts_reads_no_allocation():
    records = [host(i, CAPACITIES[0]) for i in range(40)]
    busy = {'host-%02d' % i: [maths.Allocation(0, 10, 1, {'vcpus': 8})]
            for i in range(0, 40, 2)}
    board = Board(busy)
    offer = model.Offer(board, model.Ranked(records, {'vcpus': 2}),
                        {'vcpus': 2})
    assert offer.place(8) == {'host-01': 4, 'host-03': 4}
    assert board.asked == []
    assert board.idle == ['host-01', 'host-03']


def test_on_a_busy_cloud_a_placement_reads_the_first_hosts_only():
    # Every host busy, one in five holding 3 of the need and the others
    # none: the first batch holds 6, the second the rest; the hosts after
    # it are never read.
    records = [host(i, CAPACITIES[0]) for i in range(100)]
    busy = {'host-%02d' % i: [maths.Allocation(
        0, 10, 1, {'vcpus': 8 if i % 5 else 2})] for i in range(100)}
    board = Board(busy)
    offer = model.Offer(board, model.Ranked(records, {'vcpus': 2}),
                        {'vcpus': 2})
    first = model.Offer.FIRST_LOOKUP
    assert offer.place(6) == {'host-00': 3, 'host-05': 3}
    assert board.asked == ['host-%02d' % i for i in range(first)]
    assert offer.place(9) == {'host-00': 3, 'host-05': 3, 'host-10': 3}
    assert board.asked == ['host-%02d' % i for i in range(first * 3)]

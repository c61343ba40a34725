"""reserve.capacity.model.Offer: a placement works out only the busy
hosts that could be chosen, and chooses what maths.place would choose
with every host worked out."""
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
    asked for."""
    span = 10

    def __init__(self, allocations):
        self.allocations, self.asked = allocations, []

    def allocations_of(self, host_ids, need):
        self.asked.extend(h for h in host_ids if h not in self.asked)
        return {h: self.allocations.get(h, []) for h in host_ids}


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
def test_placing_lazily_chooses_what_placing_everything_would(
        hosts, need, amount, affinity):
    records = [host(i, capacity) for i, (capacity, _) in enumerate(hosts)]
    busy = {records[i].id: c for i, (_, c) in enumerate(hosts) if c}
    offer = model.Offer(Board(busy), model.Ranked(records, need), need)
    fits = {r.id: maths.least_fit(r.capacity, busy.get(r.id, []), need, 0,
                                  10) for r in records}

    assert offer.place(amount, affinity) == maths.place(fits, amount,
                                                        affinity)
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


def test_a_placement_reads_the_allocations_of_the_first_hosts_only():
    records = [host(i, CAPACITIES[0]) for i in range(40)]
    busy = {'host-%02d' % i: [maths.Allocation(0, 10, 1, {'vcpus': 8})]
            for i in range(0, 40, 2)}
    board = Board(busy)
    offer = model.Offer(board, model.Ranked(records, {'vcpus': 2}),
                        {'vcpus': 2})
    assert offer.place(8) == {'host-01': 4, 'host-03': 4}
    assert board.asked == ['host-%02d' % i
                           for i in range(model.Offer.FIRST_LOOKUP)]

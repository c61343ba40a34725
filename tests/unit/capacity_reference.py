"""A brute-force reference of a host's offer and the hypothesis
strategies of the capacity maths' property tests (test_capacity_maths,
test_capacity_placement).

Times are small integers: every step function changes at integers only,
so checking each integer instant t checks the whole of [t, t + 1).
"""
import collections

from hypothesis import strategies as st

from reserve.capacity import maths

RESOURCES = ('vcpus', 'memory_mb', 'disk_gb')


def brute_fit(capacity, holding, need):
    """How many instances of ``need`` fit on a host beside the allocations
    ``holding`` it, by trying each number. A host short of a resource
    (overbooked) holds nothing; a need asking nothing is unbounded."""
    used = {r: sum(c.size.get(r, 0) * c.amount for c in holding)
            for r in RESOURCES}
    used_gpus = collections.Counter()
    for c in holding:
        for key, per in (c.size.get('gpus') or {}).items():
            used_gpus[key] += per * c.amount
    have_gpus = capacity.get('gpus') or {}
    need_gpus = {k: per for k, per in (need.get('gpus') or {}).items()
                 if per}

    def fits(n):
        return (all(used[r] + n * need.get(r, 0) <= capacity.get(r, 0)
                    for r in RESOURCES) and
                all(used_gpus[k] + n * per <= have_gpus.get(k, 0)
                    for k, per in need_gpus.items()))

    if not fits(0):
        return 0
    if not need_gpus and not any(need.get(r) for r in RESOURCES):
        return maths.UNBOUNDED
    n = 0
    while fits(n + 1):
        n += 1
    return n


def brute_at(capacity, allocations, need, t):
    return brute_fit(capacity,
                     [c for c in allocations if c.start <= t < c.until],
                     need)


def value_at(step_list, t):
    return [value for s, value in step_list if s <= t][-1]


gpu_counts = st.fixed_dictionaries({'VGPU': st.integers(0, 4)})
host_capacities = st.fixed_dictionaries(
    {r: st.integers(min_value=0, max_value=12) for r in RESOURCES},
    optional={'gpus': gpu_counts})
sizes = st.fixed_dictionaries(
    {}, optional=dict({r: st.integers(min_value=0, max_value=4)
                       for r in RESOURCES},
                      gpus=st.fixed_dictionaries(
                          {'VGPU': st.integers(0, 2)})))
times = st.integers(min_value=0, max_value=40)


@st.composite
def timed_allocations(draw):
    start = draw(times)
    until = draw(st.integers(min_value=start, max_value=min(start + 15, 43)))
    return maths.Allocation(start, until,
                            draw(st.integers(min_value=0, max_value=3)),
                            draw(sizes))


@st.composite
def windows(draw, longest=40):
    start = draw(st.integers(min_value=0, max_value=39))
    end = draw(st.integers(min_value=start + 1,
                           max_value=min(40, start + longest)))
    return start, end

"""The one capacity model: what the enrolled hosts hold over time.

Admission, a later end, free-slots, availability, host maintenance and
the manager's own host selection all ask this module, so they cannot
disagree: an accepted booking has its hosts chosen (its claims written
in the same transaction), and what the calendar offers is what a booking
would be given.

Per host it counts vCPUs, memory, disk and GPUs at every instant: the
capacity record of the host (reserve.capacity.refresh, read from
placement outside any lock), less the claims of every booking and lease
on it, whatever catalogue entry or nova flavor they came from, less its
maintenance windows. Non-reservable hosts hold nothing new.
"""
import collections

from oslo_config import cfg

from reserve.capacity import maths
from reserve.capacity import store
from reserve.plugins import filters
from reserve.plugins import gpus as gpu_maths

CONF = cfg.CONF

HOST_FILTER_SPEC = 'reserve:resource_properties'

Offer = collections.namedtuple('Offer', 'fits busy idle')


def size_of(nova_flavor):
    """The size one instance of a recorded nova flavor takes on a host."""
    return {'vcpus': nova_flavor.get('vcpus', 0),
            'memory_mb': nova_flavor.get('memory_mb', 0),
            'disk_gb': (nova_flavor.get('disk_gb', 0) +
                        nova_flavor.get('ephemeral_gb', 0)),
            'gpus': gpu_maths.configured_demand(
                nova_flavor.get('extra_specs') or {}, CONF)}


def host_filter_of(nova_flavor):
    return filters.parse((nova_flavor.get('extra_specs') or {})
                         .get(HOST_FILTER_SPEC))


class Board:
    """The hosts and what holds them over [start, until), read once.

    Made inside a capacity transaction (after store.lock) for decisions,
    or in a reader for the calendar's answers.
    """

    def __init__(self, context, state, start, until, guard,
                 exclude_booking=None, exclude_reservation=None,
                 exclude_claim=None):
        self.start, self.until, self.guard = start, until, guard
        self.hosts = [h for h in store.hosts(context, state)
                      if h.reservable]
        self.claims = store.claims_in_window(
            context, state, start, until, guard,
            exclude_booking=exclude_booking,
            exclude_reservation=exclude_reservation,
            exclude_claim=exclude_claim)
        for host_id, windows in store.host_windows_in(
                context, start, until, guard).items():
            self.claims[host_id].extend(windows)

    def candidates(self, host_filter=None, host_ids=None):
        if host_filter is None and host_ids is None:
            return self.hosts
        return [h for h in self.hosts
                if (host_ids is None or h.id in host_ids) and
                filters.matches(host_filter, h.capabilities)]

    def offer(self, need, host_filter=None, host_ids=None, start=None,
              until=None):
        """What each candidate host holds of ``need`` over [start,
        until) (the board's window by default): an Offer of
        {host_id: fit}, the step functions of the hosts holding claims
        then, and what the others hold together."""
        start = self.start if start is None else start
        until = self.until if until is None else until
        fits, busy, idle = {}, [], 0
        empty = {}
        for host in self.candidates(host_filter, host_ids):
            claims = self.claims.get(host.id)
            if claims:
                host_steps = maths.steps(host.capacity, claims, need,
                                         start, until)
                fits[host.id] = maths.least(host_steps)
                busy.append(host_steps)
            else:
                if host.key not in empty:
                    empty[host.key] = maths.empty_fit(host.capacity, need)
                fits[host.id] = empty[host.key]
                idle += empty[host.key]
        return Offer(fits, busy, idle)


def total(context, need, host_filter=None):
    """How many instances of ``need`` the reservable hosts hold when
    nothing else is on them (the most a catalogue entry can offer)."""
    state = store.read_state(context)
    return sum(maths.empty_fit(h.capacity, need)
               for h in store.hosts(context, state)
               if h.reservable and filters.matches(host_filter,
                                                   h.capabilities))


def fits_anywhere(context, need, host_filter=None):
    """Whether one instance of ``need`` fits on some enrolled host."""
    state = store.read_state(context)
    return any(maths.empty_fit(h.capacity, need) >= 1
               for h in store.hosts(context, state)
               if filters.matches(host_filter, h.capabilities))

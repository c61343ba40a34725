"""How many GPUs of one host spot servers may hold now.

Two kinds of capacity are lent:

* the idle seats of an active reservation on the host (reserved seats
  its owner has not booted into), less ``idle_margin`` seats that are
  never lent, so that so many of the owner's boots land at once whatever
  the spot servers do;
* the host's GPUs no booking holds from now until ``lead_time`` from
  now: a booking whose start comes within the lead time has its GPUs
  taken back first, so that its start finds them free.

Everything is counted in GPUs, which is what spot servers take from the
owners (a seat of a reservation is the GPUs of one of its instances).
Pure: the caller reads the rows and placement's usages.
"""
import dataclasses
import datetime


@dataclasses.dataclass(frozen=True)
class Held:
    """One allocation of the host: ``seats`` instances of ``gpus`` GPUs
    each over [start, end), of lease reservation ``reservation`` (None:
    a booking's, not yet adopted by a lease); ``started``: its lease is
    active, so its seats may be idle."""
    start: datetime.datetime
    end: datetime.datetime
    seats: int
    gpus: int
    reservation: str = None
    started: bool = False


@dataclasses.dataclass(frozen=True)
class Budget:
    idle_seats: int   # GPUs of started reservations' idle seats, lent
    unbooked: int     # GPUs nobody holds until the lead time, lent

    @property
    def lent(self):
        return self.idle_seats + self.unbooked


def gpus_of(size):
    """GPUs of one instance from a ``{key: count}`` record (None: 0)."""
    return sum(int(n) for n in (size or {}).values())


def of_host(host_gpus, held, used_seats, now, lead_time, margin,
            taken_back=()):
    """The Budget of a host of ``host_gpus`` GPUs (those other consumers
    do not use).

    held: its Held allocations; used_seats: {reservation: seats its
    owner's servers use on the host}; lead_time: a timedelta; margin:
    idle seats of each reservation never lent; taken_back: reservations
    ending now, whose GPUs are still counted booked and lend nothing
    whatever their window (what they lent goes with them).
    """
    horizon = now + lead_time
    booked = idle = 0
    for allocation in held:
        if allocation.reservation in taken_back:
            booked += allocation.seats * allocation.gpus
            continue
        if allocation.end <= now or allocation.start >= horizon:
            continue
        booked += allocation.seats * allocation.gpus
        if allocation.started and allocation.start <= now:
            free = (allocation.seats -
                    used_seats.get(allocation.reservation, 0) - margin)
            idle += max(0, free) * allocation.gpus
    return Budget(idle_seats=idle, unbooked=max(0, host_gpus - booked))

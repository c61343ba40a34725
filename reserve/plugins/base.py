"""What a resource plugin does at each moment of a lease's life.

Every method that touches the cloud must be idempotent: the event loop
runs it again after a crash or a failure, and it must converge.
"""
import abc


class ResourcePlugin(abc.ABC):
    resource_type = None
    # Whether its leases hold hosts through the allocations the capacity
    # model reads, whose longest length the model must know.
    capacity_allocations = False

    def prepare(self, context, values):
        """Read what the request needs from the cloud, before the manager
        takes its lock; returns the values reserve() then gets."""
        return values

    @abc.abstractmethod
    def reserve(self, context, lease_values, values):
        """Check the request and pick the resources (no cloud I/O: it runs
        under the capacity lock).

        Returns the LeaseReservation columns, with an ``allocations`` list
        of Allocation columns (or ``adopt_booking``, see
        db.leases.lease_create). Raises NotEnoughHostsAvailable.
        """

    @abc.abstractmethod
    def build(self, context, lease, reservation):
        """Prepare the artefacts at lease creation (withheld until start)."""

    @abc.abstractmethod
    def on_start(self, context, lease, reservation):
        """Hand the project its keys."""

    def sync(self, context, lease, reservation):
        """Bring a started reservation's artefacts in line with the
        database (repairs drift and follows moved allocations). Returns
        what it put right, one sentence each ([] when all was in
        place)."""
        return []

    def before_end(self, context, lease, reservation):
        """The warning moment; most plugins change nothing."""

    @abc.abstractmethod
    def on_end(self, context, lease, reservation):
        """Take the keys back and tear the artefacts down. Returns the
        ids of servers the cloud has not deleted yet (their deletion
        asked; what they hold is left for the sweep of leftovers), or
        nothing."""

    @abc.abstractmethod
    def check_new_window(self, context, lease, reservation, start, end):
        """Raise NotEnoughHostsAvailable unless the allocations still fit
        when the lease's window becomes [start, end)."""

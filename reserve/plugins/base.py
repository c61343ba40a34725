"""What a resource plugin does at each moment of a lease's life.

Every method that touches the cloud must be idempotent: the event loop
runs it again after a crash or a failure, and it must converge.
"""
import abc


class ResourcePlugin(abc.ABC):
    resource_type = None

    @abc.abstractmethod
    def reserve(self, context, lease_values, values):
        """Check the request and pick the resources (no cloud writes).

        Returns the LeaseReservation columns, with an ``allocations`` list
        of {host_id, count}. Raises NotEnoughHostsAvailable.
        """

    @abc.abstractmethod
    def build(self, context, lease, reservation):
        """Prepare the artefacts at lease creation (withheld until start)."""

    @abc.abstractmethod
    def on_start(self, context, lease, reservation):
        """Hand the project its keys."""

    def before_end(self, context, lease, reservation):
        """The warning moment; most plugins change nothing."""

    @abc.abstractmethod
    def on_end(self, context, lease, reservation):
        """Take the keys back and tear the artefacts down."""

    @abc.abstractmethod
    def check_new_window(self, context, lease, reservation, start, end):
        """Raise NotEnoughHostsAvailable unless the allocations still fit
        when the lease's window becomes [start, end)."""

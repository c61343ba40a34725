"""The request of a lease, one object from where it is made to the
manager that makes it.

The worker makes it of a booking (reserve.worker.worker) or of a device
reservation (reserve.devices.runs.lease_request); it becomes a dict only
on the bus: ``as_message`` in ManagerAPI.create_lease, ``of_message``
as LeaseManager.create_lease receives it.
"""
import dataclasses
import datetime

from reserve.common import exception
from reserve.common import states


@dataclasses.dataclass(frozen=True)
class LeaseRequest:
    name: str
    project_id: str
    user_id: str
    start: datetime.datetime
    end: datetime.datetime
    # One dict per resource plugin: resource_type and its parameters.
    reservations: tuple
    # Who it is for (states.Owner): the manager makes one lease a owner.
    owner_type: str = None
    owner_id: str = None

    @classmethod
    def for_owner(cls, owner_type, owner_id, project_id, user_id, start,
                  end, reservations):
        """The request of an owner's lease, named after it."""
        return cls(states.lease_name(owner_type, owner_id), project_id,
                   user_id or '', start, end, tuple(reservations),
                   owner_type, owner_id)

    def as_message(self):
        # Dates stay datetimes: the RPC serializer carries them.
        return {'name': self.name, 'owner_type': self.owner_type,
                'owner_id': self.owner_id, 'project_id': self.project_id,
                'user_id': self.user_id,
                'start': self.start, 'end': self.end,
                'reservations': [dict(r) for r in self.reservations]}

    @classmethod
    def of_message(cls, values):
        """The request a message holds."""
        if not values.get('owner_type') or not values.get('owner_id'):
            raise exception.Invalid(reason='a lease request names its '
                                           'owner (owner_type, owner_id)')
        start, end = values['start'], values['end']
        if end <= start:
            raise exception.Invalid(reason='end must be after '
                                           'start')
        reservations = tuple(values.get('reservations') or ())
        if not reservations:
            raise exception.Invalid(reason='a lease needs reservations')
        return cls(values['name'], values['project_id'], values['user_id'],
                   start, end, reservations, values['owner_type'],
                   values['owner_id'])

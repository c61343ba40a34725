"""SQLAlchemy models, a module per resource. Dates are naive UTC; ids are
UUID strings.

Every model is importable from here (``models.Booking``), which is how
callers and alembic's environment name them; importing this package maps
them all on ``Base.metadata``.
"""
from reserve.db.models.base import _now  # noqa: F401
from reserve.db.models.base import _uuid  # noqa: F401
from reserve.db.models.base import Base  # noqa: F401
from reserve.db.models.bookings import Booking  # noqa: F401
from reserve.db.models.deliveries import Delivery  # noqa: F401
from reserve.db.models.devices import Device  # noqa: F401
from reserve.db.models.devices import DeviceAttachment  # noqa: F401
from reserve.db.models.devices import DeviceReservation  # noqa: F401
from reserve.db.models.devices import DeviceReservationProject  # noqa: F401
from reserve.db.models.devices import DeviceReservationDevice  # noqa: F401
from reserve.db.models.events import Event  # noqa: F401
from reserve.db.models.flavors import Flavor  # noqa: F401
from reserve.db.models.flavors import FlavorProject  # noqa: F401
from reserve.db.models.flavors import FlavorSpotProject  # noqa: F401
from reserve.db.models.hosts import CapacityState  # noqa: F401
from reserve.db.models.hosts import DomainOwner  # noqa: F401
from reserve.db.models.hosts import Host  # noqa: F401
from reserve.db.models.hosts import HostCapability  # noqa: F401
from reserve.db.models.hosts import HostMaintenanceWindow  # noqa: F401
from reserve.db.models.leases import Allocation  # noqa: F401
from reserve.db.models.leases import Lease  # noqa: F401
from reserve.db.models.leases import LeaseReservation  # noqa: F401
from reserve.db.models.maintenance import MaintenanceWindow  # noqa: F401
from reserve.db.models.maintenance import MaintenanceWindowFlavor  # noqa
from reserve.db.models.offers import Offer  # noqa: F401
from reserve.db.models.series import Series  # noqa: F401
from reserve.db.models.services import Service  # noqa: F401
from reserve.db.models.sharing import BookingProject  # noqa: F401
from reserve.db.models.slot_days import flavor_slot_days  # noqa: F401

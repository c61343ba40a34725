"""A small client of the reserve API (v1) over a keystoneauth session.

:class:`Client` puts one manager per resource on a shared
:class:`~reserveclient.v1.httpclient.HTTPClient`, which finds the
endpoint, speaks the microversion header, follows ``next`` links and
turns error answers into :mod:`reserveclient.exceptions` errors. The
managers live in the modules next to this one (``reservations``,
``leases``, ``hosts``, ``flavors``, ...).

Usage::

    from keystoneauth1 import session
    from reserveclient.v1 import client

    reserve = client.Client(session.Session(auth=...))
    for booking in reserve.reservations.list(all_projects=True):
        ...
"""
from reserveclient.v1 import allocations
from reserveclient.v1 import base
from reserveclient.v1 import calendar
from reserveclient.v1 import device_reservations
from reserveclient.v1 import devices
from reserveclient.v1 import diagnoses
from reserveclient.v1 import domain_owners
from reserveclient.v1 import flavors
from reserveclient.v1 import hosts
from reserveclient.v1 import httpclient
from reserveclient.v1 import leases
from reserveclient.v1 import limits
from reserveclient.v1 import maintenance
from reserveclient.v1 import offers
from reserveclient.v1 import reservations
from reserveclient.v1 import series

# The names this module offered before the managers had modules of their
# own. The version constants are read here but used by httpclient: patch
# httpclient.MAX_VERSION, not this one.
SERVICE_TYPE = httpclient.SERVICE_TYPE
VERSION_HEADER = httpclient.VERSION_HEADER
MIN_VERSION = httpclient.MIN_VERSION
MAX_VERSION = httpclient.MAX_VERSION
parse_version = httpclient.parse_version
format_version = httpclient.format_version
HTTPClient = httpclient.HTTPClient
Manager = base.Manager
ReservationManager = reservations.ReservationManager
LeaseManager = leases.LeaseManager
HostManager = hosts.HostManager
FlavorManager = flavors.FlavorManager
MaintenanceWindowManager = maintenance.MaintenanceWindowManager
LimitsManager = limits.LimitsManager
AllocationManager = allocations.AllocationManager
DeviceManager = devices.DeviceManager
DeviceReservationManager = device_reservations.DeviceReservationManager
DomainOwnerManager = domain_owners.DomainOwnerManager


class Client:
    """The reserve API, one attribute per resource."""

    def __init__(self, session, **kwargs):
        self.http = httpclient.HTTPClient(session, **kwargs)
        self.reservations = reservations.ReservationManager(self.http)
        self.leases = leases.LeaseManager(self.http)
        self.hosts = hosts.HostManager(self.http)
        self.flavors = flavors.FlavorManager(self.http)
        self.maintenance_windows = maintenance.MaintenanceWindowManager(
            self.http)
        self.limits = limits.LimitsManager(self.http)
        self.allocations = allocations.AllocationManager(self.http)
        self.devices = devices.DeviceManager(self.http)
        self.device_reservations = (
            device_reservations.DeviceReservationManager(self.http))
        self.domain_owners = domain_owners.DomainOwnerManager(self.http)
        self.diagnoses = diagnoses.DiagnosisManager(self.http)
        self.calendar = calendar.CalendarManager(self.http)
        self.offers = offers.OfferManager(self.http)
        self.series = series.SeriesManager(self.http)

    @property
    def api_version(self):
        return httpclient.format_version(self.http.api_version)

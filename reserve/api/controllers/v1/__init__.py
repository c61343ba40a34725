"""Version 1 of the API."""
import pecan

from reserve.api.controllers.v1 import allocations
from reserve.api.controllers.v1 import calendar
from reserve.api.controllers.v1 import device_reservations
from reserve.api.controllers.v1 import devices
from reserve.api.controllers.v1 import diagnoses
from reserve.api.controllers.v1 import flavors
from reserve.api.controllers.v1 import hosts
from reserve.api.controllers.v1 import leases
from reserve.api.controllers.v1 import limits
from reserve.api.controllers.v1 import maintenance
from reserve.api.controllers.v1 import offers
from reserve.api.controllers.v1 import reports
from reserve.api.controllers.v1 import reservations
from reserve.api.controllers.v1 import series
from reserve.api import microversion
from reserve.api import openapi


def version_doc():
    """The document describing v1, as listed at / and shown at /v1."""
    return {
        'id': 'v1.0',
        'status': 'CURRENT',
        'min_version': str(microversion.MIN_VERSION),
        'max_version': str(microversion.MAX_VERSION),
        'links': [{'rel': 'self',
                   'href': pecan.request.application_url + '/v1'}],
    }


class OpenAPIController:
    """/v1/openapi.json: the OpenAPI description of this API (public)."""

    @pecan.expose(generic=True, template='json')
    def index(self):
        pecan.abort(405, headers={'Allow': 'GET, HEAD'})

    @index.when(method='GET', template='json')
    def index_get(self):
        return openapi.document(pecan.request.application_url)

    @index.when(method='HEAD', template='json')
    def index_head(self):
        return openapi.document(pecan.request.application_url)


class Controller:
    """/v1"""

    reservations = reservations.ReservationsController()
    leases = leases.LeasesController()
    hosts = hosts.HostsController()
    allocations = allocations.AllocationsController()
    # the booking desk
    flavors = flavors.FlavorsController()
    limits = limits.LimitsController()
    reports = reports.ReportsController()
    # GPU devices of libvirt hosts
    devices = devices.DevicesController()
    # the doctor (1.3)
    diagnoses = diagnoses.DiagnosesController()
    # what the calendar page draws (1.5)
    calendar = calendar.CalendarController()
    # recurring bookings (1.7)
    series = series.SeriesController()
    # the offer search (1.10)
    offers = offers.OffersController()

    @pecan.expose(generic=True, template='json')
    def index(self):
        pecan.abort(405, headers={'Allow': 'GET, HEAD'})

    @index.when(method='GET', template='json')
    def index_get(self):
        return {'version': version_doc()}

    @index.when(method='HEAD', template='json')
    def index_head(self):
        return {'version': version_doc()}


# A dash is not valid in a Python name.
setattr(Controller, 'maintenance-windows',
        maintenance.MaintenanceWindowsController())
setattr(Controller, 'device-reservations',
        device_reservations.DeviceReservationsController())
setattr(Controller, 'openapi.json', OpenAPIController())

"""The names of the API's fields, by microversion.

Microversion 1.2 of the API gives each concept one name: ``device_ids``
where 1.0 said ``unit_ids``, ``reserved_flavor_id`` where it said
``compute_flavor``, and so on (the tables below). Before 1.2 the API
reads and shows the earlier names only (1.1 shows a few fields under
both).

The managers take the names of 1.2 and send each request under those of
the version it is made at (:func:`sent`). What the API answers is
returned as it is: a command shows the names of the version it spoke,
those of 1.2 unless it spoke an older one (a server that offers no
newer, or ``--os-reserve-api-version 1.0`` or ``1.1``), when it shows
what it always showed.
"""
from reserveclient.v1 import httpclient

ONE_NAME = '1.2'

# {name since 1.2: the name before it}, per resource.
RESERVATION = {'reserved_flavor_id': 'compute_flavor'}
ALLOCATION = {'lease_reservation_id': 'reservation_id', 'amount': 'count'}
DEVICE = {'device_reservation_id': 'reservation_id'}
DEVICE_RESERVATION = {'device_ids': 'unit_ids', 'devices': 'units',
                      'device_count': 'count', 'device_id': 'unit_id'}


def one_name(http, version=None):
    """Whether a request at ``version`` (default: the version the client
    speaks) reads and shows the names of 1.2."""
    spoken = httpclient.parse_version(version) if version else \
        http.api_version
    return spoken >= httpclient.parse_version(ONE_NAME)


def name(http, table, field, version=None):
    """How the API at ``version`` names ``field`` (a name of 1.2) of the
    resource of ``table``."""
    return field if one_name(http, version) else table.get(field, field)


def sent(http, table, fields, version=None):
    """``fields`` (a body or query under the names of 1.2) under the
    names of ``version``."""
    return {name(http, table, key, version): value
            for key, value in fields.items()}

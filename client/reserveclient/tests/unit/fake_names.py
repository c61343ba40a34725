"""The names of the API double at the microversion asked, as the server
has them (reserve/api/views, reserve/api/schemas).

The double keeps every resource under the names of microversion 1.2
(one name per concept) and shows them, and reads bodies and query
parameters, under the names of the request's version: before 1.2 the
earlier names, 1.1 showing a few fields under both (BOTH_IN_1_1). It
also shows what 1.3 and 1.4 add to the views of the resources it has.
"""
from reserveclient.tests.unit import fake_rest

GLOSSARY_NAMES = (1, 1)
ONE_NAME = (1, 2)
PLAYBOOK = (1, 3)
SPOT = (1, 4)
# A refused booking's counter_offer (the server's COUNTER_OFFER).
COUNTER_OFFER = (1, 6)
# A reservation's series_id, and /v1/series (the server's SERIES).
SERIES = (1, 7)
# A booking that waits for room (the server's STANDBY).
STANDBY = (1, 8)
# A reservation's shared_project_ids (the server's SHARING).
SHARING = (1, 9)

# {name since 1.2: the name before it}, per resource.
RESERVATION = {'reserved_flavor_id': 'compute_flavor'}
LEASE_RESERVATION = {'reserved_flavor_id': 'flavor_id'}
LEASE_ALLOCATION = {'amount': 'count'}
ALLOCATION = {'lease_reservation_id': 'reservation_id', 'amount': 'count'}
DEVICE = {'device_reservation_id': 'reservation_id'}
DEVICE_RESERVATION = {'device_ids': 'unit_ids', 'devices': 'units',
                      'device_count': 'count', 'device_id': 'unit_id'}
LIMITS = {'device_reservations': 'unit_reservations',
          'device_hours': 'unit_hours'}
# The names 1.1 shows beside the earlier ones (which 1.2 drops).
BOTH_IN_1_1 = ('reserved_flavor_id', 'lease_reservation_id',
               'device_reservation_id')

# What a reservation got, when nothing happened to it yet (1.3).
NO_DELIVERY = {'usable_at': None, 'seconds_to_usable': None,
               'hosts_replaced': 0, 'repairs': 0, 'missing_instances': 0,
               'missing_instance_minutes': 0, 'stuck_servers': []}


def shown(fields, version, renamed):
    """``fields`` (a dict under the names of 1.2) as ``version`` shows
    them."""
    if version >= ONE_NAME:
        return dict(fields)
    view = {}
    for name, value in fields.items():
        old = renamed.get(name)
        if old is None:
            view[name] = value
            continue
        view[old] = value
        if version >= GLOSSARY_NAMES and name in BOTH_IN_1_1:
            view[name] = value
    return view


def name_at(name, version, renamed):
    """How ``version`` names the field ``name`` (a name of 1.2)."""
    return name if version >= ONE_NAME else renamed.get(name, name)


def read(fields, version, renamed, unknown):
    """A body or a query of ``version`` under the names of 1.2. A name of
    the other versions is refused (400) as the server refuses any field
    it does not know: ``unknown(name)`` says so."""
    fields = dict(fields or {})
    if version >= ONE_NAME:
        refused = set(renamed.values()) - set(renamed)
        since = {}
    else:
        refused = set(renamed) - set(renamed.values())
        since = {old: new for new, old in renamed.items()}
    wrong = sorted(refused & set(fields))
    if wrong:
        raise fake_rest.ApiError(400, unknown(wrong[0]))
    return {since.get(name, name): value for name, value in fields.items()}


def unknown_field(name):
    return "Invalid input: unknown field '%s'" % name


def unknown_param(name):
    return "unknown query parameter '%s'" % name


def _since(view, version, wanted, name, default):
    """``name`` in ``view`` from microversion ``wanted`` on only."""
    if version >= wanted:
        view.setdefault(name, default)
    else:
        view.pop(name, None)


def reservation(view, version, one, method):
    """A booking: from 1.3 what it lacks in the answer about it alone
    (missing_capacity), and what it got in a GET of it (delivery); from
    1.8 when it waited on standby, and until when."""
    _since(view, version, PLAYBOOK, 'missing_capacity', [])
    _since(view, version, STANDBY, 'standby_since', None)
    _since(view, version, STANDBY, 'standby_until', None)
    _since(view, version, PLAYBOOK, 'delivery', dict(NO_DELIVERY))
    _since(view, version, SHARING, 'shared_project_ids', [])
    if not one:
        view.pop('missing_capacity', None)
        view.pop('shared_project_ids', None)
    if not one or method != 'GET':
        view.pop('delivery', None)
    if version >= SERIES:
        view.setdefault('series_id', None)
    else:
        view.pop('series_id', None)
    return shown(view, version, RESERVATION)


def _lease_reservation(view, version):
    view = shown(view, version, LEASE_RESERVATION)
    if 'allocations' in view:
        view['allocations'] = [shown(a, version, LEASE_ALLOCATION)
                               for a in view['allocations'] or []]
    return view


def lease(view, version):
    """A lease: its reservations and their allocations by the version."""
    if 'reservations' in view:
        view['reservations'] = [_lease_reservation(r, version)
                                for r in view['reservations'] or []]
    return view


def host(view, version):
    """A host: its failure and failed_at from 1.3."""
    _since(view, version, PLAYBOOK, 'failure', None)
    _since(view, version, PLAYBOOK, 'failed_at', None)
    return view


def device_reservation(view, version):
    """A device reservation: released_device_ids from 1.4,
    missing_capacity from 1.3, the names of its devices (in its request
    record and attachments too) by the version."""
    _since(view, version, SPOT, 'released_device_ids', [])
    _since(view, version, PLAYBOOK, 'missing_capacity', [])
    if view.get('request'):
        view['request'] = shown(view['request'], version,
                                DEVICE_RESERVATION)
    if 'attachments' in view:
        view['attachments'] = [shown(a, version, DEVICE_RESERVATION)
                               for a in view['attachments'] or []]
    return shown(view, version, DEVICE_RESERVATION)

"""One writer per status: the status of a booking and of a device
reservation moves only through its module of transitions (the
manager's), and a cancel only through the desk's cancel module."""
import ast
import pathlib

import pytest

from reserve.common import context as reserve_context
from reserve.db import bookings as bookings_db
from reserve.db import device_reservations as device_reservations_db

ROOT = pathlib.Path(__file__).resolve().parents[2] / 'reserve'

# db function: the only modules (under reserve/) that may call it.
WRITERS = {
    # booking/standby.py: a waiter admitted (STANDBY → PENDING_CREATE),
    # cancelled or lapsed, moves no row that has a lease.
    'booking_move': {'manager/booking_status.py', 'booking/standby.py'},
    'device_reservation_move': {'devices/status.py'},
    'booking_close': {'booking/cancel.py', 'booking/standby.py'},
    # lifecycle.cancel: the previous release's road, on its way out.
    'device_reservation_close': {'booking/cancel.py',
                                 'devices/lifecycle.py'},
}
STATUS_KEYS = {'status', 'recorded_status', 'closed_as'}


def _calls():
    for path in sorted(ROOT.rglob('*.py')):
        relative = path.relative_to(ROOT).as_posix()
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Call):
                func = node.func
                name = getattr(func, 'attr', getattr(func, 'id', None))
                yield relative, node, name


def test_each_status_has_one_writing_module():
    strays = sorted('%s:%d %s' % (path, node.lineno, name)
                    for path, node, name in _calls()
                    if name in WRITERS and path not in WRITERS[name]
                    and not path.startswith('db/'))
    assert strays == []


def test_no_update_of_either_table_names_a_status():
    strays = []
    for path, node, name in _calls():
        if name not in ('booking_update', 'device_reservation_update'):
            continue
        for arg in node.args + [k.value for k in node.keywords]:
            if isinstance(arg, ast.Dict) and STATUS_KEYS & {
                    k.value for k in arg.keys
                    if isinstance(k, ast.Constant)}:
                strays.append('%s:%d' % (path, node.lineno))
    assert strays == []


def test_only_the_db_layer_names_the_stored_columns():
    """recorded_status and closed_as are set nowhere else: no dict key,
    keyword or attribute assignment outside reserve/db/."""
    strays = []
    for path in sorted(ROOT.rglob('*.py')):
        relative = path.relative_to(ROOT).as_posix()
        if relative.startswith('db/'):
            continue
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            names = []
            if isinstance(node, ast.Dict):
                names = [k.value for k in node.keys
                         if isinstance(k, ast.Constant)]
            elif isinstance(node, ast.keyword):
                names = [node.arg]
            elif isinstance(node, (ast.Assign, ast.AugAssign)):
                targets = getattr(node, 'targets', None) or [node.target]
                names = [t.attr for t in targets
                         if isinstance(t, ast.Attribute)]
            if {'recorded_status', 'closed_as'} & set(names):
                strays.append('%s:%d' % (relative, node.lineno))
    assert strays == []


@pytest.mark.usefixtures('db')
@pytest.mark.parametrize('update,key', [
    (bookings_db.booking_update, 'status'),
    (bookings_db.booking_update, 'closed_as'),
    (device_reservations_db.device_reservation_update, 'status'),
    (device_reservations_db.device_reservation_update, 'closed_as'),
])
def test_the_plain_updates_refuse_a_status(update, key):
    with pytest.raises(ValueError):
        update(reserve_context.get_admin_context(), 'any', {key: 'x'})

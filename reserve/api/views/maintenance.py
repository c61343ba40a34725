"""The representation of a flavor maintenance window
(/v1/maintenance-windows)."""
from reserve.common import timeutils


def window_view(window):
    return {
        'id': window.id,
        'start': timeutils.isoformat(window.start),
        'end': timeutils.isoformat(window.end),
        'note': window.note,
        'all_flavors': bool(window.all_flavors),
        'flavors': [] if window.all_flavors else window.flavor_ids,
        'created_at': timeutils.isoformat(window.created_at),
        'updated_at': timeutils.isoformat(window.updated_at),
    }


def show(window):
    """The answer about one maintenance window."""
    return {'maintenance_window': window_view(window)}

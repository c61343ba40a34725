"""The body of GET /v1/offers."""
from reserve.common import timeutils


def offer_view(row, found):
    """One offer: the stored row and what the search found of it (the
    flavor's name, the hosts it would be placed on)."""
    return {'id': row.id, 'flavor_id': row.flavor_id,
            'flavor_name': found.flavor.name,
            'instance_count': row.instance_count,
            'start': timeutils.isoformat(row.start),
            'end': timeutils.isoformat(row.end),
            'hosts': found.hosts,
            'expires_at': timeutils.isoformat(row.expires_at)}


def offers_view(rows, found):
    return {'offers': [offer_view(r, f) for r, f in zip(rows, found)]}

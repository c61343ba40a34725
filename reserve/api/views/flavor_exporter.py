"""The answers of the de.NBI flavor exporter's URLs
(reserve.api.flavor_exporter), in the exporter's shape::

    {"flavors": [{"flavor_openstack_id": "<nova flavor id>",
                  "flavor_name": "<nova flavor name>",
                  "available": 3, "total": 4}, ...],
     "timestamp": "2026-12-04 14:30:00"}

``total``: the most instances the flavor offers at once, ``available``:
how many are free now; the same figures as the ``total`` and
``available`` of /v1/flavors/availability. The timestamp (UTC, the
exporter's format) is when they were computed: now, nothing is cached.
"""
TIMESTAMP_FORMAT = '%Y-%m-%d %H:%M:%S'


def flavor_row(flavor, total, available):
    """One catalogue flavor as the exporter showed a flavor: named as
    nova names its flavor (the catalogue's name when nova's was never
    read)."""
    nova_flavor = flavor.nova_flavor or {}
    return {'flavor_openstack_id': flavor.nova_flavor_id,
            'flavor_name': nova_flavor.get('name') or flavor.name,
            'available': available,
            'total': total}


def flavors_view(flavors, offered, free, now):
    return {'flavors': [flavor_row(f, offered[f.id], free[f.id])
                        for f in flavors],
            'timestamp': now.strftime(TIMESTAMP_FORMAT)}

"""The representation of a project's booking limits (/v1/limits)."""
from reserve.api import microversion

# {quota resource: its name before microversion 1.2}.
_BEFORE_ONE_NAME = {'device_reservations': 'unit_reservations',
                    'device_hours': 'unit_hours'}


def limits_view(project_id, driver, resources):
    """``resources``: {name: {limit, in_use}} as the quota driver reports
    them."""
    if not microversion.serves(microversion.ONE_NAME):
        resources = {_BEFORE_ONE_NAME.get(name, name): value
                     for name, value in resources.items()}
    return {'limits': {
        'project_id': project_id,
        'driver': driver.name,
        # -1 is no limit; in_use counts the live reservations only.
        'resources': resources,
    }}

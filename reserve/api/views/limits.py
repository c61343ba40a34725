"""The representation of a project's booking limits (/v1/limits)."""


def limits_view(project_id, driver, resources):
    """``resources``: {name: {limit, in_use}} as the quota driver reports
    them."""
    return {'limits': {
        'project_id': project_id,
        'driver': driver.name,
        # -1 is no limit; in_use counts the live reservations only.
        'resources': resources,
    }}

"""The representation of a domain's recorded owner
(/v1/hosts/{id}/domain-owners)."""
from reserve.common import timeutils


def owner_view(owner):
    return {'host_id': owner.host_id, 'domain': owner.domain,
            'project_id': owner.project_id,
            'created_at': timeutils.isoformat(owner.created_at),
            'updated_at': timeutils.isoformat(owner.updated_at)}

"""Request context carried through the API, RPC and notifications."""
from oslo_context import context
from oslo_db.sqlalchemy import enginefacade


@enginefacade.transaction_context_provider
class RequestContext(context.RequestContext):
    """A security context; admins may look across projects."""

    def __init__(self, all_projects=False, **kwargs):
        super().__init__(**kwargs)
        self.all_projects = all_projects

    def to_dict(self):
        values = super().to_dict()
        values['all_projects'] = self.all_projects
        return values

    @classmethod
    def from_dict(cls, values, **kwargs):
        kwargs.setdefault('all_projects', values.get('all_projects', False))
        return super().from_dict(values, **kwargs)


def get_admin_context():
    """The context of one run of reserve's own background jobs, with a
    request id of its own: it becomes the calling thread's current
    context, so the run's log lines carry its id, not one left by an
    earlier request or notification on that thread."""
    return RequestContext(user_id=None, project_id=None, is_admin=True,
                          roles=['admin', 'service'], all_projects=True,
                          overwrite=True)

"""The owners administrators record for domains of libvirt hosts not run
by nova (reserve.devices.owners reads them), and the nova hosts that
tell whether a libvirt host is run by nova.

Same conventions as reserve.db.api: every function takes a
RequestContext first and joins the caller's transaction.
"""
from reserve.db import api as db_api
from reserve.db import models


def owners_of_host(context, host_id):
    """{domain name: project id} recorded for a host."""
    with db_api.reader.using(context) as session:
        return {o.domain: o.project_id for o in
                session.query(models.DomainOwner).filter_by(host_id=host_id)}


def owner_list(context, host_id):
    with db_api.reader.using(context) as session:
        return (session.query(models.DomainOwner).filter_by(host_id=host_id)
                .order_by(models.DomainOwner.domain).all())


def owner_get(context, host_id, domain):
    """The record of one domain, or None."""
    with db_api.reader.using(context) as session:
        return session.get(models.DomainOwner, (host_id, domain))


def owner_set(context, host_id, domain, project_id):
    """Record (or change) a domain's owner; returns the record."""
    with db_api.writer.using(context) as session:
        found = session.get(models.DomainOwner, (host_id, domain))
        if found is None:
            found = models.DomainOwner(host_id=host_id, domain=domain,
                                       project_id=project_id)
            session.add(found)
        else:
            found.project_id = project_id
        session.flush()
        return found


def owner_delete(context, host_id, domain):
    """Forget a domain's owner; False when it had no record."""
    with db_api.writer.using(context) as session:
        return bool(session.query(models.DomainOwner)
                    .filter_by(host_id=host_id, domain=domain)
                    .delete(synchronize_session=False))


def nova_host_named(context, names):
    """Whether a nova host is enrolled whose name (nova's hypervisor
    hostname) or service_name (nova's service host) is one of
    ``names``."""
    names = [n for n in names if n]
    if not names:
        return False
    H = models.Host
    with db_api.reader.using(context) as session:
        return session.query(
            session.query(H).filter(H.kind == 'nova')
            .filter(H.name.in_(names) | H.service_name.in_(names))
            .exists()).scalar()

"""Keep other projects' on-demand boots off the reservable nova hosts.

A reservation fences its own instances onto its hosts (flavor_instance);
this is the other half: nothing else lands on those hosts. It uses nova's
isolated aggregates, which need ``[scheduler]
enable_isolated_aggregate_filtering = True`` in nova-scheduler's
nova.conf:

* every reservable nova host is in the aggregate ``[fence]aggregate``,
  whose metadata is ``trait:<[fence]trait>=required``; nova-api mirrors
  the membership onto the host's compute node provider in placement, and
  nova-scheduler asks placement for hosts outside that aggregate for any
  flavor or image that does not require the trait;
* reserved flavors require it (specs()), so the host must carry it: it goes
  on the compute node provider, the root of the host's tree. Placement
  matches a required trait of the unnumbered request group on any
  provider of the tree that gives resources to the request, and the root
  always gives VCPU and MEMORY_MB, whether the VGPU or the
  CUSTOM_RESERVATION_<RSV> come from children or not. nova's resource
  tracker keeps traits it does not own.

Everything here does nothing when ``[fence]enabled`` is False.
"""
from oslo_config import cfg
from oslo_log import log as logging

from reserve.common import exception
from reserve.common import placement as placement_api
from reserve.db import hosts as hosts_db

CONF = cfg.CONF
LOG = logging.getLogger(__name__)


def specs():
    """The extra specs a reserved flavor carries to pass the fence (read
    at each call: [fence] comes from the config files); none when the
    fence is off."""
    if not CONF.fence.enabled:
        return {}
    return {'trait:%s' % CONF.fence.trait: 'required'}


def _metadata():
    return {'trait:%s' % CONF.fence.trait: 'required'}


def _service(host):
    # Aggregates take nova's service host, not the hypervisor name.
    return host.service_name or host.name


def _provider_uuid(placement, host):
    if host.provider_uuid:
        return host.provider_uuid
    # Enrolled while placement did not know it: nova names the compute
    # node provider after the hypervisor.
    provider = placement.get_provider_by_name(host.name)
    return provider['uuid'] if provider else None


def _ensure_fence(nova, placement):
    """The trait and the aggregate with its metadata; returns (what was
    repaired, the aggregate)."""
    placement.ensure_trait(CONF.fence.trait)
    name, metadata = CONF.fence.aggregate, _metadata()
    aggregate = nova.find_aggregate(name)
    if aggregate is not None and all(
            aggregate.metadata.get(k) == v for k, v in metadata.items()):
        return [], aggregate
    done = ['aggregate %s %s' % (name, 'metadata set' if aggregate
                                 else 'created')]
    return done, nova.ensure_aggregate(name, metadata)


def _fence(nova, placement, host, aggregate):
    done = []
    uuid = _provider_uuid(placement, host)
    if uuid is None:
        raise exception.CloudError(
            service='placement',
            reason='host %s has no resource provider' % host.name)
    # The trait before the aggregate: in the aggregate without the trait
    # the host would take no boot at all, reserved ones included.
    if placement.add_provider_trait(uuid, CONF.fence.trait):
        done.append('%s: trait %s set' % (host.name, CONF.fence.trait))
    if _service(host) not in aggregate.hosts and nova.add_aggregate_host(
            aggregate.name, _service(host)):
        done.append('%s: added to aggregate %s' % (host.name,
                                                   aggregate.name))
    return done


def _holds_reservations(placement, hypervisor_name):
    child = placement.get_provider_by_name(placement_api.CHILD_PREFIX +
                                           hypervisor_name)
    return child is not None and any(
        rc.startswith(placement_api.RESERVATION_CLASS_PREFIX)
        for rc in placement.get_inventories(child['uuid']))


def _unfence(nova, placement, host, members):
    done = []
    # Out of the aggregate first: on-demand boots may land again.
    if _service(host) in members and nova.remove_aggregate_host(
            CONF.fence.aggregate, _service(host)):
        done.append('%s: taken out of aggregate %s' % (
            host.name, CONF.fence.aggregate))
    uuid = _provider_uuid(placement, host)
    traits = placement.get_provider_traits(uuid) if uuid else None
    # Reserved flavors still to boot on the host require the trait; out
    # of the aggregate it keeps nothing away, and sync takes it once
    # their inventory is gone.
    if (traits and CONF.fence.trait in traits and
            not _holds_reservations(placement, host.name) and
            placement.remove_provider_trait(uuid, CONF.fence.trait)):
        done.append('%s: trait %s removed' % (host.name,
                                              CONF.fence.trait))
    return done


def fence_host(nova, placement, host):
    """Keep on-demand boots off ``host`` (a db Host of kind nova).

    Returns what had to change, one line each. Raises CloudError.
    """
    if not CONF.fence.enabled:
        return []
    done, aggregate = _ensure_fence(nova, placement)
    return done + _fence(nova, placement, host, aggregate)


def unfence_host(nova, placement, host):
    """Give ``host`` back to on-demand boots; returns what changed."""
    if not CONF.fence.enabled:
        return []
    aggregate = nova.find_aggregate(CONF.fence.aggregate)
    members = set(aggregate.hosts) if aggregate else set()
    return _unfence(nova, placement, host, members)


def sync(context, nova, placement):
    """Make the fence match the enrolled hosts: every reservable nova host
    fenced, every other one not, the aggregate holding nothing else.

    Undoes hand edits (a host taken out of the aggregate, a trait
    removed). Returns what it repaired, one line each; a host that
    cannot be repaired now is logged and left for the next run.
    """
    if not CONF.fence.enabled:
        return []
    hosts = [h for h in hosts_db.host_list(context) if h.kind == 'nova']
    done, aggregate = _ensure_fence(nova, placement)
    members = set(aggregate.hosts)
    for host in hosts:
        try:
            if host.reservable:
                done += _fence(nova, placement, host, aggregate)
            else:
                done += _unfence(nova, placement, host, members)
        except exception.CloudError as exc:
            LOG.warning('Fence of host %s not repaired: %s', host.name,
                        exc)
    # Hosts no longer enrolled (a removal that failed half way, or one
    # added by hand): the aggregate is reserve's own.
    for stranger in sorted(members - {_service(h) for h in hosts}):
        try:
            if nova.remove_aggregate_host(aggregate.name, stranger):
                done.append('%s: not enrolled, taken out of aggregate %s'
                            % (stranger, aggregate.name))
        except exception.CloudError as exc:
            LOG.warning('Host %s not taken out of aggregate %s: %s',
                        stranger, aggregate.name, exc)
    done += _untrait_strangers(placement, hosts)
    return done


def _strangers(placement, hosts):
    """The providers holding the trait that are no enrolled host's: a
    host removed from reserve, or a trait set by hand."""
    known = {h.name for h in hosts} | {h.provider_uuid for h in hosts}
    return [p for p in placement.get_providers_with_trait(CONF.fence.trait)
            if p['name'] not in known and p['uuid'] not in known]


def _untrait_strangers(placement, hosts):
    # Out of the aggregate the trait keeps no boot away (nova isolates
    # aggregates, not traits), but it is reserve's mark: a host removed
    # from reserve is left as it was found, once no reserved flavor
    # still needs the trait there.
    done = []
    try:
        strangers = _strangers(placement, hosts)
    except exception.CloudError as exc:
        LOG.warning('Providers holding trait %s not listed: %s',
                    CONF.fence.trait, exc)
        return done
    for provider in strangers:
        try:
            if (not _holds_reservations(placement, provider['name']) and
                    placement.remove_provider_trait(provider['uuid'],
                                                    CONF.fence.trait)):
                done.append('%s: not enrolled, trait %s removed' % (
                    provider['name'], CONF.fence.trait))
        except exception.CloudError as exc:
            LOG.warning('Trait %s not taken from provider %s: %s',
                        CONF.fence.trait, provider['name'], exc)
    return done


def check(nova, placement, hosts):
    """What is wrong with the fence of ``hosts`` (db Hosts), one line per
    problem; for reserve-status. Raises CloudError."""
    if not CONF.fence.enabled:
        return []
    hosts = [h for h in hosts if h.kind == 'nova']
    name, trait = CONF.fence.aggregate, CONF.fence.trait
    problems = []
    aggregate = nova.find_aggregate(name)
    members = set(aggregate.hosts) if aggregate else set()
    if aggregate is None:
        if any(h.reservable for h in hosts):
            problems.append('aggregate %s does not exist' % name)
    elif aggregate.metadata.get('trait:%s' % trait) != 'required':
        problems.append('aggregate %s lacks the metadata trait:%s='
                        'required' % (name, trait))
    for host in hosts:
        fenced = _service(host) in members
        if not host.reservable:
            if fenced:
                problems.append('host %s is not reservable but is still '
                                'in aggregate %s' % (host.name, name))
            continue
        if not fenced:
            problems.append('host %s is not in aggregate %s' % (host.name,
                                                                name))
        uuid = _provider_uuid(placement, host)
        traits = placement.get_provider_traits(uuid) if uuid else None
        if traits is None:
            problems.append('host %s has no resource provider in '
                            'placement' % host.name)
        elif trait not in traits:
            problems.append('the resource provider of host %s lacks trait '
                            '%s' % (host.name, trait))
    for provider in _strangers(placement, hosts):
        problems.append('resource provider %s holds trait %s but is no '
                        'enrolled host' % (provider['name'], trait))
    return problems

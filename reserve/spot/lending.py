"""The manager's spot task: lend idle fenced GPUs, take them back in time.

Every [spot]interval seconds, for each fenced nova host:

* its budget (reserve.spot.budget) is worked out from the allocations in
  the database and placement's usages of its child provider
  ``reserve_<host>`` (how many seats the owners' servers hold);
* when spot servers hold more than the budget (an owner booted into its
  idle seats, a booking comes within the lead time, a host failed or was
  made unreservable), the oldest of them are reclaimed (deleted or
  shelved, [spot]reclaim_action) until they fit, with a
  ``spot.server.reclaimed`` notification each;
* spot servers a booking will need within [spot]warning_time of the lead
  time get a ``spot.server.warning`` notification first;
* the spot inventory ([spot]resource_class) of the child provider is set
  to the budget. Spot flavors ask ``resources:<class>=<their GPUs>``, so
  nova's scheduler places a spot server only where GPUs are lent, and
  never more of them than are lent.

Watching nova's boots would come too late (a boot that finds no GPU
fails in the scheduler at once): the owner's boots are protected by the
margin of idle seats never lent ([spot]idle_margin), which the next run
restores by reclaiming.

The spot flavors themselves are kept as the catalogue says: each gets
the spot class and the fence trait in its extra specs, and flavor access
for exactly the projects that opted in.
"""
import collections
import datetime
import time

from oslo_config import cfg
from oslo_log import log as logging
import sqlalchemy as sa

from reserve.capacity import store
from reserve.common import exception
from reserve.common import placement as placement_api
from reserve.common import rpc
from reserve.common import states
from reserve.common import timeutils
from reserve.db import api as db_api
from reserve.db import flavors as flavors_db
from reserve.db import hosts as hosts_db
from reserve.db import models
from reserve.fence import fence
from reserve.spot import budget as budget_mod

CONF = cfg.CONF
LOG = logging.getLogger(__name__)

# A reclaimed server whose allocation is still in placement this long
# after nova was asked is asked again.
ASK_AGAIN_SECONDS = 60


_NOTIFIER = None


def _notify(context, event_type, payload):
    """A notification of the spot task (publisher reserve.spot.<host>)."""
    global _NOTIFIER
    if _NOTIFIER is None:
        _NOTIFIER = rpc.get_notifier('reserve.spot.%s' % CONF.host)
    _NOTIFIER.info(context, event_type, payload)


def spot_class():
    return CONF.spot.resource_class


def flavor_specs(flavor):
    """The extra specs reserve keeps on a spot flavor's nova flavor."""
    specs = {'resources:%s' % spot_class():
             max(1, budget_mod.gpus_of(flavor.gpus))}
    specs.update(fence.specs())
    return specs


def _service(host):
    return host.service_name or host.name


def held_by_host(context, now, until, lease_reservation_ids=()):
    """{host id: [budget.Held]}: the allocations meeting [now, until),
    and those of ``lease_reservation_ids`` whatever their window."""
    A, R, L = models.Allocation, models.LeaseReservation, models.Lease
    query = (sa.select(A.host_id, A.start, A.end, A.amount, A.gpus,
                       A.lease_reservation_id, L.status)
             .outerjoin(R, R.id == A.lease_reservation_id)
             .outerjoin(L, L.id == R.lease_id))
    window = sa.and_(A.end > now, A.start < until)
    if lease_reservation_ids:
        window = sa.or_(window,
                        A.lease_reservation_id.in_(lease_reservation_ids))
    found = collections.defaultdict(list)
    with db_api.reader.using(context) as session:
        for host_id, start, end, seats, gpus, rsv_id, status in \
                session.execute(query.where(window)):
            found[host_id].append(budget_mod.Held(
                start, end, seats, budget_mod.gpus_of(gpus), rsv_id,
                started=status == states.Lease.ACTIVE))
    return found


def host_gpus(host):
    """GPUs of a host other consumers do not use, when they are all of
    one kind; 0 when there are GPUs of two kinds: the spot class counts
    GPUs as one kind, so a spot server could take the other kind's
    GPUs a reservation holds."""
    found = {key: n for key, n in
             store.usable(host, host.gpus)['gpus'].items() if n > 0}
    return sum(found.values()) if len(found) == 1 else 0


class SpotLending:
    def __init__(self, nova_client, placement_client):
        self.nova = nova_client
        self.placement = placement_client
        self._children = {}   # hypervisor name: child provider uuid
        self._asked = {}      # server id: monotonic time nova was asked
        # hypervisor name: ids of its spot servers warned of a reclaim
        self._warned = collections.defaultdict(set)
        self._checked = {}    # hypervisor name: when its inventory was read
        # spot flavor id: (what was last made so, when)
        self._flavors = {}

    # the spot flavors ------------------------------------------------------

    def ensure_flavors(self, flavors, withdrawn=()):
        """Each spot flavor's nova flavor with the spot specs and flavor
        access for exactly its opted-in projects, and the flavors of
        ``withdrawn`` entries (inactive, or no longer spot) with none of
        them; returns what was put right, one line each."""
        done = []
        for flavor, lends in ([(f, True) for f in flavors] +
                              [(f, False) for f in withdrawn]):
            wanted = (flavor.nova_flavor_id, lends,
                      tuple(sorted(flavor_specs(flavor).items())),
                      tuple(flavor.spot_project_ids))
            made = self._flavors.get(flavor.id)
            if made and made[0] == wanted and \
                    time.monotonic() - made[1] < CONF.manager.repair_interval:
                continue  # a hand edit in nova is undone at that pace
            try:
                done += self._ensure_flavor(flavor, lends)
            except exception.CloudError as exc:
                LOG.warning('Spot flavor %s not made as its entry says: %s',
                            flavor.name, exc)
                continue
            self._flavors[flavor.id] = (wanted, time.monotonic())
        return done

    def _ensure_flavor(self, flavor, lends):
        done = (self._made(flavor) if lends else self._withdrawn(flavor))
        for line in done:
            LOG.info('%s', line)
        return done

    def _withdrawn(self, flavor):
        # Its specs stay: no host lends what they ask any more.
        nova_id = flavor.nova_flavor_id
        granted = self.nova.flavor_projects(nova_id)
        done = []
        for project_id in sorted(granted & set(flavor.spot_project_ids)):
            self.nova.remove_flavor_access(nova_id, project_id)
            done.append('spot flavor %s withdrawn: access of project %s '
                        'taken' % (flavor.name, project_id))
        return done

    def _made(self, flavor):
        nova_id = flavor.nova_flavor_id
        written = self.nova.merge_flavor_specs(nova_id, flavor_specs(flavor))
        if written is None:
            LOG.warning('Spot flavor %s: nova flavor %s does not exist',
                        flavor.name, nova_id)
            return []
        done = ['spot flavor %s: extra spec %s set' % (flavor.name, key)
                for key in written]
        wanted = set(flavor.spot_project_ids)
        granted = self.nova.flavor_projects(nova_id)
        for project_id in sorted(wanted - granted):
            if self.nova.add_flavor_access(nova_id, project_id):
                done.append('spot flavor %s: access of project %s given' %
                            (flavor.name, project_id))
        for project_id in sorted(granted - wanted):
            self.nova.remove_flavor_access(nova_id, project_id)
            done.append('spot flavor %s: access of project %s taken (not '
                        'opted in)' % (flavor.name, project_id))
        return done

    # lending ---------------------------------------------------------------

    def run(self, context, now=None):
        """One run over every fenced host; returns {host name: Budget} of
        the hosts it looked at."""
        now = now or timeutils.utcnow()
        flavors = flavors_db.spot_flavor_list(context)
        self.ensure_flavors(flavors,
                            flavors_db.spot_flavors_withdrawn(context))
        lead = datetime.timedelta(seconds=CONF.spot.lead_time)
        warning = datetime.timedelta(seconds=CONF.spot.warning_time)
        held = held_by_host(context, now, now + lead + warning)
        budgets = {}
        for host in hosts_db.host_list(context):
            if host.kind != 'nova' or not host.provider_uuid:
                continue
            lends = bool(flavors) and store.offered(host)
            try:
                found = self.lend(context, host, held.get(host.id, []), now,
                                  lends)
            except exception.CloudError as exc:
                LOG.warning('Spot lending on host %s not brought up to '
                            'date: %s', host.name, exc)
                continue
            if found is not None:
                budgets[host.name] = found
        return budgets

    def lend(self, context, host, held, now, lends=True, taken_back=()):
        """Bring the spot inventory of ``host`` to its budget, reclaiming
        the spot servers beyond it; returns the Budget, or None when the
        host lends nothing and never did (no placement call then)."""
        lead = datetime.timedelta(seconds=CONF.spot.lead_time)
        warning = datetime.timedelta(seconds=CONF.spot.warning_time)
        gpus = host_gpus(host)

        def budget_at(lead_time, used_seats, back=()):
            if not lends:
                return budget_mod.Budget(0, 0)
            return budget_mod.of_host(gpus, held, used_seats, now,
                                      lead_time, CONF.spot.idle_margin,
                                      set(taken_back) | set(back))

        if not (host.spot_lent or host.spot_used or
                budget_at(lead, {}).lent):
            return None
        child = self._child(host)
        usages = (self.placement.get_usages(child) or {}) if child else {}
        used_seats = {placement_api.reservation_of_class(rc): n
                      for rc, n in usages.items()
                      if rc.startswith(placement_api.RESERVATION_CLASS_PREFIX)}
        spot_used = usages.get(spot_class(), 0)
        found = budget_at(lead, used_seats)
        # What is still lent warning_time from now: a booking then
        # within the lead time, and a reservation ending by then (what
        # it lent goes with it), take theirs back.
        ending = {h.reservation for h in held
                  if h.started and h.end <= now + warning}
        later = budget_at(lead + warning, used_seats, ending)
        if spot_used > found.lent:
            self._reclaim(context, host, child, spot_used - found.lent,
                          self._why(found, used_seats, lends))
        if spot_used > later.lent:
            self._warn(context, host, child, spot_used - later.lent,
                       now + warning)
        else:
            self._warned.pop(host.name, None)
        # New spot servers are lent only what lasts the warning time, so
        # that none is reclaimed without notice by a coming booking.
        self._set_inventory(context, host, child,
                            min(found.lent, later.lent), spot_used,
                            spot_class() in usages)
        return found

    def _why(self, found, used_seats, lends):
        if not lends:
            return 'the host lends no GPUs now'
        if any(used_seats.values()):
            return 'the reservation owners boot into their seats'
        return 'a booking of the host comes within the lead time'

    def _child(self, host):
        uuid = self._children.get(host.name)
        if uuid is None:
            if not self._children:
                self.placement.ensure_resource_class(spot_class())
            child = self.placement.get_provider_by_name(
                placement_api.CHILD_PREFIX + host.name)
            if child is None:
                child = self.placement.ensure_child_provider(
                    host.provider_uuid, host.name)
            uuid = self._children[host.name] = child['uuid']
        return uuid

    def _set_inventory(self, context, host, child, lent, spot_used,
                       present):
        # The capacity left to new spot servers is the budget: reserved
        # covers what spot servers hold beyond it until they are gone.
        total = max(lent, spot_used)
        # Written when the budget moved; read and compared anyway every
        # [manager]repair_interval, which undoes a hand edit.
        clock = time.monotonic()
        unchanged = (lent == host.spot_lent and present == bool(total) and
                     clock - self._checked.get(host.name, -1e9) <
                     CONF.manager.repair_interval)
        if not unchanged:
            self._checked[host.name] = clock
            if total:
                self.placement.set_inventory(
                    child, spot_class(), total,
                    record={'reserved': total - lent, 'min_unit': 1,
                            'max_unit': total, 'step_size': 1,
                            'allocation_ratio': 1.0})
            else:
                self.placement.delete_inventory(child, spot_class())
        if (host.spot_lent, host.spot_used) != (lent, spot_used):
            hosts_db.host_update(context, host.id,
                                 {'spot_lent': lent,
                                  'spot_used': spot_used})

    # taking back -----------------------------------------------------------

    def _spot_servers(self, host, child):
        """[(server view, GPUs)] of the spot servers on ``host``, oldest
        first (a consumer nova no longer lists first: it is going)."""
        held = {consumer: resources.get(spot_class(), 0)
                for consumer, resources in
                self.placement.get_provider_allocations(child).items()}
        held = {c: n for c, n in held.items() if n}
        if not held:
            return []
        views = {s['id']: s for s in self.nova.servers(host=_service(host))}
        found = [(views.get(c) or {'id': c, 'created': ''}, n)
                 for c, n in held.items()]
        return sorted(found, key=lambda f: (f[0].get('created') or '',
                                            f[0]['id']))

    def _reclaim(self, context, host, child, wanted, why):
        """Take ``wanted`` GPUs back from the oldest spot servers of
        ``host``; servers nova was already asked about count as going."""
        clock = time.monotonic()
        for view, gpus in self._spot_servers(host, child):
            if wanted <= 0:
                break
            asked = self._asked.get(view['id'])
            wanted -= gpus
            if asked is not None and clock - asked < ASK_AGAIN_SECONDS:
                continue
            self._asked[view['id']] = clock
            self._take(context, host, view, gpus, why)
        self._forget_gone()

    def _take(self, context, host, view, gpus, why):
        action = CONF.spot.reclaim_action
        if action == 'shelve':
            self.nova.shelve_server(view['id'])
        else:
            self.nova.ask_server_deletion([view['id']])
        LOG.info('Spot server %s of project %s on host %s reclaimed (%s, '
                 '%d GPUs): %s', view['id'], view.get('project_id'),
                 host.name, action, gpus, why)
        _notify(context, 'spot.server.reclaimed', {
            'server_id': view['id'], 'project_id': view.get('project_id'),
            'user_id': view.get('user_id'),
            'host': host.name, 'gpus': gpus, 'action': action,
            'reason': why})

    def _forget_gone(self):
        limit = time.monotonic() - 10 * ASK_AGAIN_SECONDS
        for server_id, asked in list(self._asked.items()):
            if asked < limit:
                del self._asked[server_id]

    def _warn(self, context, host, child, wanted, reclaim_by):
        """Warn the oldest spot servers of ``host`` holding ``wanted``
        GPUs, once each; those a reclaim already asked count, unwarned."""
        servers = self._spot_servers(host, child)
        warned = self._warned[host.name]
        warned &= {view['id'] for view, _ in servers}  # the gone forgotten
        for view, gpus in servers:
            if wanted <= 0:
                break
            wanted -= gpus
            if view['id'] in warned or view['id'] in self._asked:
                continue
            warned.add(view['id'])
            LOG.info('Spot server %s of project %s on host %s will be '
                     'reclaimed by %s: a booking needs its GPUs',
                     view['id'], view.get('project_id'), host.name,
                     timeutils.isoformat(reclaim_by))
            _notify(context, 'spot.server.warning', {
                'server_id': view['id'], 'user_id': view.get('user_id'),
                'project_id': view.get('project_id'), 'host': host.name,
                'gpus': gpus, 'reclaim_by': timeutils.isoformat(reclaim_by),
                'reason': 'a booking of the host needs its GPUs'})


def take_back(context, nova_client, placement_client, reservation):
    """A lease reservation ends: what its hosts lent of it goes with it
    (its idle seats are no longer lent; the rest of each host is lent as
    before)."""
    if not CONF.spot.interval:
        return
    now = timeutils.utcnow()
    lead = datetime.timedelta(seconds=CONF.spot.lead_time)
    held = held_by_host(context, now, now + lead, [reservation.id])
    lending = SpotLending(nova_client, placement_client)
    lends = bool(flavors_db.spot_flavor_list(context))
    for allocation in reservation.allocations:
        host = allocation.host
        if host.kind != 'nova' or not host.provider_uuid:
            continue
        try:
            lending.lend(context, host, held.get(host.id, []), now,
                         lends and store.offered(host),
                         taken_back={reservation.id})
        except exception.CloudError as exc:
            LOG.warning('Spot servers on host %s not taken back with '
                        'reservation %s: %s', host.name, reservation.id,
                        exc)

"""The placement calls reserve needs, over a keystoneauth1 adapter.

Every write is idempotent: creating what exists or deleting what is gone
succeeds, so a step re-run after a crash converges.
"""
import urllib.parse

from keystoneauth1 import exceptions as ks_exc
from oslo_log import log as logging

from reserve.common import exception
from reserve.common import keystone

LOG = logging.getLogger(__name__)

# 1.14: nested providers (parent_provider_uuid); 1.7: PUT resource class.
MICROVERSION = '1.14'
# 1.26: an inventory's reserved may equal its total (no capacity left).
RESERVED_ALL_MICROVERSION = '1.26'
CHILD_PREFIX = 'reserve_'
# The resource classes of reservations: this, then the reservation's id.
RESERVATION_CLASS_PREFIX = 'CUSTOM_RESERVATION_'


# What an inventory of a reservation's class is, besides its total.
RESERVATION_INVENTORY = {'reserved': 0, 'min_unit': 1, 'max_unit': 1,
                         'step_size': 1, 'allocation_ratio': 1.0}


def reservation_resource_class(lease_reservation_id):
    """CUSTOM_RESERVATION_<ID>: the UUID upper-cased, dashes as '_'."""
    return (RESERVATION_CLASS_PREFIX +
            lease_reservation_id.upper().replace('-', '_'))


def reservation_of_class(resource_class):
    """The lease reservation id a reservation's resource class names
    (the inverse of reservation_resource_class), or None."""
    if not resource_class.startswith(RESERVATION_CLASS_PREFIX):
        return None
    return resource_class[len(RESERVATION_CLASS_PREFIX):].lower() \
        .replace('_', '-')


@exception.translate_cloud_errors('placement', ks_exc.ClientException)
class PlacementClient:
    def __init__(self, adapter=None):
        self._adapter = adapter

    @property
    def adapter(self):
        if self._adapter is None:
            self._adapter = keystone.get_adapter('placement')
        return self._adapter

    def _request(self, method, url, expected=(200,), json=None,
                 tolerated=(), microversion=MICROVERSION):
        resp = self.adapter.request(
            url, method, json=json, microversion=microversion,
            raise_exc=False, headers={'Accept': 'application/json'})
        if resp.status_code in expected:
            return resp.json() if resp.content else None
        if resp.status_code in tolerated:
            return None
        raise exception.CloudError(
            service='placement',
            reason='%s %s answered %d: %s' % (method, url, resp.status_code,
                                              resp.text[:500]))

    def _delete(self, url):
        """DELETE ``url``: True when it was there, False when it was
        gone already."""
        resp = self.adapter.request(
            url, 'DELETE', microversion=MICROVERSION, raise_exc=False,
            headers={'Accept': 'application/json'})
        if resp.status_code in (204, 404):
            return resp.status_code == 204
        raise exception.CloudError(
            service='placement',
            reason='DELETE %s answered %d: %s' % (url, resp.status_code,
                                                  resp.text[:500]))

    # providers -----------------------------------------------------------

    def get_provider_by_name(self, name):
        body = self._request('GET', '/resource_providers?' +
                             urllib.parse.urlencode({'name': name}))
        providers = body['resource_providers']
        return providers[0] if providers else None

    def get_providers_with_trait(self, trait):
        """The providers that hold ``trait`` (``required`` is 1.18)."""
        body = self._request('GET', '/resource_providers?' +
                             urllib.parse.urlencode({'required': trait}),
                             microversion='1.18')
        return body['resource_providers']

    def list_providers(self, name_prefix=''):
        """Every provider whose name starts with ``name_prefix``."""
        body = self._request('GET', '/resource_providers')
        return [p for p in body['resource_providers']
                if p['name'].startswith(name_prefix)]

    def get_provider(self, uuid):
        return self._request('GET', '/resource_providers/%s' % uuid,
                             tolerated=(404,))

    def ensure_child_provider(self, parent_uuid, hypervisor_name):
        """The per-host provider that carries reservation inventories."""
        name = CHILD_PREFIX + hypervisor_name
        provider = self.get_provider_by_name(name)
        if provider is not None:
            return provider
        created = self._request(
            'POST', '/resource_providers', expected=(200, 201),
            json={'name': name, 'parent_provider_uuid': parent_uuid},
            tolerated=(409,))
        # 409: another manager created it between our GET and POST.
        return created or self.get_provider_by_name(name)

    def get_inventories(self, uuid):
        body = self._request('GET',
                             '/resource_providers/%s/inventories' % uuid)
        return body['inventories']

    def get_tree(self, root_uuid):
        """The providers in the tree of ``root_uuid`` (root first)."""
        body = self._request('GET', '/resource_providers?' +
                             urllib.parse.urlencode({'in_tree': root_uuid}))
        return sorted(body['resource_providers'],
                      key=lambda p: p['uuid'] != root_uuid)

    def get_provider_allocations(self, uuid):
        """{consumer uuid: {resource class: amount}} on provider
        ``uuid``."""
        body = self._request('GET',
                             '/resource_providers/%s/allocations' % uuid)
        return {consumer: dict(found['resources'])
                for consumer, found in body['allocations'].items()}

    def get_usages(self, uuid):
        """{resource class: amount used} of provider ``uuid``; None if it
        is gone."""
        body = self._request('GET', '/resource_providers/%s/usages' % uuid,
                             tolerated=(404,))
        return None if body is None else dict(body['usages'])

    # resource classes ------------------------------------------------------

    def resource_class_exists(self, name):
        return self._request('GET', '/resource_classes/%s' % name,
                             tolerated=(404,)) is not None

    def ensure_resource_class(self, name):
        """Create the custom class ``name`` unless it exists; True if it
        was created now."""
        if self._request('GET', '/resource_classes/%s' % name,
                         tolerated=(404,)) is not None:
            return False
        self._request('PUT', '/resource_classes/%s' % name,
                      expected=(201, 204))
        return True

    def list_resource_classes(self, prefix=''):
        """The names of the resource classes starting with ``prefix``."""
        body = self._request('GET', '/resource_classes')
        return sorted(rc['name'] for rc in body['resource_classes']
                      if rc['name'].startswith(prefix))

    def delete_resource_class(self, name):
        """True if it existed. Placement refuses (409) while an
        inventory of it remains."""
        return self._delete('/resource_classes/%s' % name)

    # traits ------------------------------------------------------------------

    def ensure_trait(self, name):
        """Create the custom trait ``name`` unless it exists."""
        self._request('PUT', '/traits/%s' % name, expected=(201, 204))

    def get_provider_traits(self, uuid):
        """The traits of provider ``uuid`` (a set); None if it is gone."""
        body = self._request('GET', '/resource_providers/%s/traits' % uuid,
                             tolerated=(404,))
        return None if body is None else set(body['traits'])

    def add_provider_trait(self, uuid, trait):
        """Give provider ``uuid`` the trait; True if it lacked it."""
        return self._change_traits(uuid, lambda traits: traits | {trait})

    def remove_provider_trait(self, uuid, trait):
        """Take the trait from provider ``uuid``; True if it had it."""
        return self._change_traits(uuid, lambda traits: traits - {trait})

    def _change_traits(self, uuid, change, retries=5):
        """Write ``change(traits)`` as the provider's traits, keeping the
        others (nova's among them).

        PUT replaces the whole set: it is written with the generation it
        was read at, and re-read on a generation conflict (409), as nova
        writes the same set concurrently.
        """
        url = '/resource_providers/%s/traits' % uuid
        for _ in range(retries):
            current = self._request('GET', url, tolerated=(404,))
            if current is None:
                raise exception.CloudError(
                    service='placement',
                    reason='resource provider %s is gone' % uuid)
            traits = set(current['traits'])
            wanted = change(traits)
            if wanted == traits:
                return False
            resp = self.adapter.put(
                url, json={'resource_provider_generation':
                           current['resource_provider_generation'],
                           'traits': sorted(wanted)},
                microversion=MICROVERSION, raise_exc=False)
            if resp.status_code == 200:
                return True
            if resp.status_code != 409:
                break
        raise exception.CloudError(
            service='placement',
            reason='cannot set the traits of %s: %d %s' % (
                uuid, resp.status_code, resp.text[:300]))

    # inventories -----------------------------------------------------------

    def set_inventory(self, uuid, resource_class, total, retries=5,
                      record=None):
        """Make one inventory record of a reservation's class ``total``
        (max_unit 1, or the fields of ``record``), keeping the provider's
        others; nothing is written
        when it is so already. Returns (whether it was written, the
        record found before it or None when there was none).

        The whole set is written with the provider generation it was read
        at, and re-read on a generation conflict.
        """
        url = '/resource_providers/%s/inventories' % uuid
        wanted = dict(record or RESERVATION_INVENTORY, total=total)
        for _ in range(retries):
            current = self._request('GET', url, tolerated=(404,))
            if current is None:
                raise exception.CloudError(
                    service='placement',
                    reason='resource provider %s is gone' % uuid)
            inventories = current['inventories']
            found = inventories.get(resource_class)
            if found is not None and all(found.get(k) == v
                                         for k, v in wanted.items()):
                return False, found
            inventories[resource_class] = wanted
            resp = self.adapter.put(
                url, json={'resource_provider_generation':
                           current['resource_provider_generation'],
                           'inventories': inventories},
                microversion=(RESERVED_ALL_MICROVERSION if record
                              else MICROVERSION), raise_exc=False)
            if resp.status_code == 200:
                return True, found
            if resp.status_code != 409:
                break
        raise exception.CloudError(
            service='placement',
            reason='cannot set %s inventory on %s: %d %s' % (
                resource_class, uuid, resp.status_code, resp.text[:300]))

    def delete_inventory(self, uuid, resource_class):
        """Remove one inventory record; True if it was there.

        Placement refuses (409) while allocations still use it.
        """
        return self._delete('/resource_providers/%s/inventories/%s' %
                            (uuid, resource_class))

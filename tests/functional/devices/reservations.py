"""What the tests of /v1/device-reservations share: the URL, personas,
the fields of a view, and requests through gpu_api's WSGI stack."""
from reserve.db import api as db_api
from reserve.db import models
from tests.functional.api_fixtures import MEMBER_A
from tests.functional.api_fixtures import persona

URL = '/v1/device-reservations'
A100 = 'A100 SXM4 80GB'
MEMBER_C = persona('carol', 'project-c', 'member,reader')
VIEW_FIELDS = {
    'id', 'host_id', 'host', 'project_id', 'user_id', 'allowed_projects',
    'managing_projects', 'unit_ids', 'units', 'mdev_type', 'request',
    'start', 'end', 'status', 'status_reason', 'contract_ref', 'reason',
    'topology_generation', 'domains', 'attachments', 'lease_id',
    'released_at', 'created_at', 'updated_at'}
# What a hold writes: a refused one leaves every count as it was.
HOLD_TABLES = ('device_reservations', 'device_reservation_devices',
               'device_reservation_projects', 'device_attachments',
               'leases', 'events', 'lease_reservations', 'allocations')


def counts():
    with db_api.get_engine().connect() as conn:
        return {t: len(conn.execute(
            models.Base.metadata.tables[t].select()).all())
            for t in HOLD_TABLES}


def create(gpu_api, body, headers=MEMBER_A, url=URL, **kwargs):
    return gpu_api.app.post_json(url, body, headers=headers, **kwargs)


def show(gpu_api, rsv_id, headers=MEMBER_A, **kwargs):
    return gpu_api.app.get('%s/%s' % (URL, rsv_id), headers=headers,
                           **kwargs)

"""A series is written by its project's members and the administrators
only, over HTTP: each persona of the harness that is not one (another
project's member, the owner's reader, an auditor and a service user that
read every project, a member of its own project that also reads every
project) is refused the cancel of another project's series, all or from
an occurrence on (404 when it cannot see it, 403 when it may read but
not write it), and nothing changes; the owner's member and the
administrator then cancel it."""
import pytest

from reserve.api import microversion
from tests.functional.api_fixtures import future
from tests.functional.api_fixtures import make_flavor
from tests.functional.hostile.http import assert_http_error
from tests.functional.hostile.test_write_rights import assert_refused
from tests.functional.hostile.test_write_rights import OUTSIDERS
from tests.functional.hostile.test_write_rights import snapshot

VERSION = {microversion.HEADER: microversion.header_value(
    microversion.SERIES)}
SERIES = '/v1/series'

pytestmark = pytest.mark.usefixtures('casts')


def _series(http):
    make_flavor('gpu.a100')
    made = http.post('member_a', SERIES, headers=VERSION, json={
        'flavor_id': 'gpu.a100', 'start': future(24), 'end': future(26),
        'recurrence': 'FREQ=DAILY;COUNT=3'})
    assert made.status_code == 201, made.text
    return made.json()['series']


def _statuses(http, series):
    shown = http.get('admin', '%s/%s' % (SERIES, series['id']),
                     headers=VERSION)
    return [o['status'] for o in shown.json()['series']['occurrences']]


@pytest.mark.parametrize('who', OUTSIDERS)
def test_nobody_else_cancels_a_series(served, who):
    http = served
    series = _series(http)
    item = '%s/%s' % (SERIES, series['id'])
    before = snapshot()
    for path in (item, item + '?from=%s' % series['occurrences'][1]['id']):
        assert_refused(http.delete(who, path, headers=VERSION))
    assert snapshot() == before
    # Those that read it are refused the write only.
    if who == 'reader_a':
        assert http.get(who, item, headers=VERSION).status_code == 200
    if who in ('reader_all', 'member_all'):
        listed = http.get(who, SERIES + '?all_projects=1', headers=VERSION)
        assert listed.status_code == 200, listed.text
        assert [s['id'] for s in listed.json()['series']] == [series['id']]
    if who == 'member_all':
        assert_http_error(http.delete(who, item, headers=VERSION), 403)


@pytest.mark.parametrize('who', OUTSIDERS)
def test_nobody_creates_in_another_project(served, who):
    """A series is its caller's project's, whatever the body says."""
    http = served
    make_flavor('gpu.a100')
    made = http.post(who, SERIES, headers=VERSION, json={
        'flavor_id': 'gpu.a100', 'start': future(24), 'end': future(26),
        'recurrence': 'FREQ=DAILY;COUNT=2', 'project_id': 'project-a'})
    assert_http_error(made, 403 if who in ('reader_a', 'reader_all',
                                           'service') else 400)


@pytest.mark.parametrize('who', ('member_a', 'admin'))
def test_the_owner_and_the_admin_cancel_a_series(served, who):
    http = served
    series = _series(http)
    gone = http.delete(who, '%s/%s' % (SERIES, series['id']),
                       headers=VERSION)
    assert gone.status_code == 204, gone.text
    assert _statuses(http, series) == ['COMPLETE'] * 3

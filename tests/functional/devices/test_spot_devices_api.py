"""Spot devices through the whole WSGI stack (microversion 1.4): the
owner releases a device its domains do not use, another project attaches
it to a spot domain, a reclaim's dry run says what it would terminate and
the reclaim terminates exactly that; a cancel takes everything back
first; a reservation in needs-review lends nothing; who may do what.
Run with -s to see the requests and answers of the first test."""
import json

from tests.functional.api_fixtures import ADMIN
from tests.functional.api_fixtures import assert_error
from tests.functional.api_fixtures import MEMBER_A
from tests.functional.api_fixtures import MEMBER_B
from tests.functional.api_fixtures import READER_A
from tests.functional.devices.reservations import A100
from tests.functional.devices.reservations import URL

V14 = {'OpenStack-API-Version': 'reserve 1.4'}
V13 = {'OpenStack-API-Version': 'reserve 1.3'}
OWNER = dict(MEMBER_A, **V14)
SPOT_USER = dict(MEMBER_B, **V14)


def _say(method, url, body, response):
    print('\n$ %s %s%s' % (method, url,
                           ' ' + json.dumps(body) if body is not None
                           else ''))
    print('%s\n%s' % (response.status, json.dumps(response.json, indent=1)
                      if response.body else ''))


def _post(app, url, body, headers, expect=200, say=False):
    response = app.post_json(url, body, headers=headers,
                             expect_errors=expect != 200)
    assert response.status_int == expect, response.text
    if say:
        _say('POST', url, body, response)
    return response


def _active(gpu_api, a100, count=2, domain_devices=1, headers=OWNER):
    """An active reservation of ``count`` A100s, the first
    ``domain_devices`` of them attached to gpu-vm-2; gpu-vm-3 is
    project-b's (the spot user's)."""
    gpu_api.own(a100, 'gpu-vm-3', 'project-b')
    rsv = gpu_api.app.post_json(URL, {'device_count': count, 'model': A100},
                                headers=headers).json['device_reservation']
    gpu_api.tick()
    if domain_devices:
        gpu_api.app.post_json('%s/%s/attach' % (URL, rsv['id']), {
            'domain': 'gpu-vm-2',
            'device_ids': rsv['device_ids'][:domain_devices]},
            headers=headers)
    return gpu_api.app.get('%s/%s' % (URL, rsv['id']),
                           headers=headers).json['device_reservation']


def _hostdevs(gpu_api, host, domain):
    return sorted(h['id'] for h in
                  gpu_api.domain(host, domain)['hostdevs'])


def test_release_spot_attach_dry_run_and_reclaim(gpu_api, a100):
    app = gpu_api.app
    rsv = _active(gpu_api, a100)
    url = '%s/%s' % (URL, rsv['id'])
    owned, lent = rsv['device_ids']
    released = _post(app, url + '/release', {'device_ids': [lent]}, OWNER,
                     say=True).json['device_reservation']
    assert released['released_device_ids'] == [lent]
    market = app.get('/v1/devices', {'spot': 'true'},
                     headers=SPOT_USER)
    _say('GET', '/v1/devices?spot=true', None, market)
    assert [(d['id'], d['state']) for d in market.json['devices']] == [
        (lent, 'spot')]
    attached = _post(app, '/v1/devices/%s/attach' % lent,
                     {'domain': 'gpu-vm-3', 'tier': 'spot'}, SPOT_USER,
                     say=True).json['device']
    assert attached['state'] == 'in-use'
    assert len(_hostdevs(gpu_api, a100, 'gpu-vm-3')) == 1
    before = _hostdevs(gpu_api, a100, 'gpu-vm-2')
    dry = _post(app, url + '/reclaim', {'dry_run': True}, OWNER,
                say=True).json
    assert dry['would_terminate'] == [{'device_id': lent,
                                       'domain': 'gpu-vm-3',
                                       'project_id': 'project-b'}]
    assert dry['would_skip'] == []
    # A dry run changes nothing.
    assert len(_hostdevs(gpu_api, a100, 'gpu-vm-3')) == 1
    done = _post(app, url + '/reclaim', {}, OWNER, say=True).json
    assert done['terminated'] == dry['would_terminate']
    assert done['skipped'] == [] and done['device_ids'] == [lent]
    assert _hostdevs(gpu_api, a100, 'gpu-vm-3') == []
    # The owner's own domain is untouched.
    assert _hostdevs(gpu_api, a100, 'gpu-vm-2') == before
    shown = app.get(url, headers=OWNER).json['device_reservation']
    assert shown['released_device_ids'] == []
    assert shown['domains'] == ['gpu-vm-2']
    assert app.get('/v1/devices', {'spot': 'true'},
                   headers=SPOT_USER).json['devices'] == []
    # Back with the owner: its domains may take it again.
    app.post_json(url + '/attach', {'domain': 'gpu-vm-2',
                                    'device_ids': [lent]}, headers=OWNER)
    assert len(_hostdevs(gpu_api, a100, 'gpu-vm-2')) == 2
    assert owned in shown['device_ids']


def test_release_refuses_what_it_must(gpu_api, a100):
    app = gpu_api.app
    rsv = _active(gpu_api, a100)
    url = '%s/%s' % (URL, rsv['id'])
    owned, lent = rsv['device_ids']
    assert_error(_post(app, url + '/release', {'device_ids': [owned]},
                       OWNER, expect=409), 409, detail_has='gpu-vm-2')
    assert_error(_post(app, url + '/release',
                       {'device_ids': [lent, 'no-such-device']}, OWNER,
                       expect=400), 400, detail_has='no-such-device')
    for body in ({}, {'device_ids': []}, {'device_ids': [lent], 'x': 1},
                 {'device_ids': 'x'}):
        assert_error(_post(app, url + '/release', body, OWNER,
                           expect=400), 400)
    # Another project: as for GET, it does not exist.
    assert_error(_post(app, url + '/release', {'device_ids': [lent]},
                       SPOT_USER, expect=404), 404)
    assert_error(_post(app, URL + '/nope/release', {'device_ids': [lent]},
                       OWNER, expect=404), 404)
    # A reader of the project acting as a writer.
    assert_error(_post(app, url + '/release', {'device_ids': [lent]},
                       dict(READER_A, **V14), expect=403), 403)
    # Below 1.4 the routes do not exist.
    assert_error(_post(app, url + '/release', {'device_ids': [lent]},
                       dict(MEMBER_A, **V13), expect=404), 404)
    assert 'released_device_ids' not in app.get(
        url, headers=dict(MEMBER_A, **V13)).json['device_reservation']
    # Nothing changed by any of it.
    assert app.get(url, headers=OWNER).json['device_reservation'][
        'released_device_ids'] == []
    # A reclaim of what is not lent is refused, a dry run of all is
    # empty.
    assert_error(_post(app, url + '/reclaim', {'device_ids': [lent]},
                       OWNER, expect=400), 400, detail_has='not lent')
    assert _post(app, url + '/reclaim', {'dry_run': True}, OWNER).json == {
        'device_ids': [], 'would_terminate': [], 'would_skip': [],
        'dry_run': True}
    # Released, a device no longer goes to the owner's domains.
    _post(app, url + '/release', {'device_ids': [lent]}, OWNER)
    assert_error(_post(app, url + '/attach', {'domain': 'gpu-vm-2',
                                              'device_ids': [lent]},
                       OWNER, expect=409), 409, detail_has='lent out')


def test_spot_attach_refusals(gpu_api, a100):
    app = gpu_api.app
    rsv = _active(gpu_api, a100)
    url = '%s/%s' % (URL, rsv['id'])
    owned, lent = rsv['device_ids']
    assert_error(_post(app, '/v1/devices/%s/attach' % lent,
                       {'domain': 'gpu-vm-3', 'tier': 'spot'}, SPOT_USER,
                       expect=409), 409, detail_has='not on the spot')
    _post(app, url + '/release', {'device_ids': [lent]}, OWNER)
    # Another project's domain is answered as one that does not exist.
    assert_error(_post(app, '/v1/devices/%s/attach' % lent,
                       {'domain': 'gpu-vm-2', 'tier': 'spot'}, SPOT_USER,
                       expect=400), 400, 'reserve.domain_not_found')
    for body in ({'domain': 'gpu-vm-3'},
                 {'domain': 'gpu-vm-3', 'tier': 'gold'}, {'tier': 'spot'}):
        assert_error(_post(app, '/v1/devices/%s/attach' % lent, body,
                           SPOT_USER, expect=400), 400)
    assert_error(_post(app, '/v1/devices/%s/attach' % lent,
                       {'domain': 'gpu-vm-3', 'tier': 'spot'},
                       dict(MEMBER_B, **V13), expect=404), 404)
    _post(app, '/v1/devices/%s/attach' % lent,
          {'domain': 'gpu-vm-3', 'tier': 'spot'}, SPOT_USER)
    # One spot domain per device.
    gpu_api.own(a100, 'transient-vm', 'project-b')
    assert_error(_post(app, '/v1/devices/%s/attach' % lent,
                       {'domain': 'transient-vm', 'tier': 'spot'},
                       SPOT_USER, expect=409), 409, detail_has='already')
    assert_error(_post(app, '/v1/devices/%s/attach' % owned,
                       {'domain': 'transient-vm', 'tier': 'spot'},
                       SPOT_USER, expect=409), 409)
    # The spot user cannot reclaim, nor see the reservation.
    assert_error(_post(app, url + '/reclaim', {}, SPOT_USER, expect=404),
                 404)


def test_cancel_takes_everything_back_first(gpu_api, a100):
    app = gpu_api.app
    rsv = _active(gpu_api, a100)
    url = '%s/%s' % (URL, rsv['id'])
    lent = rsv['device_ids'][1]
    _post(app, url + '/release', {'device_ids': [lent]}, OWNER)
    _post(app, '/v1/devices/%s/attach' % lent,
          {'domain': 'gpu-vm-3', 'tier': 'spot'}, SPOT_USER)
    assert app.delete(url, headers=OWNER).status_int == 204
    gpu_api.tick()
    assert _hostdevs(gpu_api, a100, 'gpu-vm-3') == []
    assert _hostdevs(gpu_api, a100, 'gpu-vm-2') == []
    shown = app.get(url, headers=OWNER).json['device_reservation']
    assert shown['status'] == 'cancelled'
    assert shown['released_device_ids'] == []
    assert_error(_post(app, url + '/release', {'device_ids': [lent]},
                       OWNER, expect=409), 409)
    assert_error(_post(app, url + '/reclaim', {}, OWNER, expect=409), 409)


def test_needs_review_withholds_what_it_lent(gpu_api, a100):
    app = gpu_api.app
    rsv = _active(gpu_api, a100, domain_devices=0)
    url = '%s/%s' % (URL, rsv['id'])
    first, second = rsv['device_ids']
    _post(app, url + '/release', {'device_ids': [first]}, OWNER)
    gpu_api.topology_change(a100, lambda text: text.replace(
        "<iommuGroup number='150'>", "<iommuGroup number='151'>", 1))
    app.post('/v1/hosts/%s/refresh' % a100['id'], headers=ADMIN)
    assert app.get(url, headers=OWNER).json['device_reservation'][
        'status'] == 'needs-review'
    assert app.get('/v1/devices', {'spot': 'true'},
                   headers=SPOT_USER).json['devices'] == []
    assert_error(_post(app, url + '/release', {'device_ids': [second]},
                       OWNER, expect=409), 409, detail_has='needs-review')
    assert_error(_post(app, '/v1/devices/%s/attach' % first,
                       {'domain': 'gpu-vm-3', 'tier': 'spot'}, SPOT_USER,
                       expect=409), 409)
    # The owner may still take back what it lent.
    assert _post(app, url + '/reclaim', {}, OWNER).json['device_ids'] == [
        first]


def test_a_manager_releases_and_reclaims_for_the_owner(gpu_api, a100):
    app = gpu_api.app
    gpu_api.own(a100, 'gpu-vm-3', 'project-b')
    rsv = app.post_json(URL, {'device_count': 1, 'model': A100,
                              'managing_projects': ['project-c']},
                        headers=dict(ADMIN, **V14)).json[
        'device_reservation']
    gpu_api.tick()
    manager = {'X-User-Id': 'carol', 'X-Project-Id': 'project-c',
               'X-Roles': 'member,reader', **V14}
    url = '%s/%s' % (URL, rsv['id'])
    _post(app, url + '/release', {'device_ids': rsv['device_ids']}, manager)
    assert _post(app, url + '/reclaim', {'dry_run': True}, manager).json[
        'would_terminate'] == []
    assert _post(app, url + '/reclaim', {}, manager).json['terminated'] \
        == []


# the spot user's detach ----------------------------------------------------

PROJECT_C = {'X-User-Id': 'carol', 'X-Project-Id': 'project-c',
             'X-Roles': 'member,reader', **V14}


def _lent_and_attached(gpu_api, a100):
    """An active reservation whose second device is lent and attached to
    gpu-vm-3, project-b's spot domain; (url, owned, lent)."""
    app = gpu_api.app
    rsv = _active(gpu_api, a100)
    url = '%s/%s' % (URL, rsv['id'])
    owned, lent = rsv['device_ids']
    _post(app, url + '/release', {'device_ids': [lent]}, OWNER)
    _post(app, '/v1/devices/%s/attach' % lent,
          {'domain': 'gpu-vm-3', 'tier': 'spot'}, SPOT_USER)
    return url, owned, lent


def test_spot_user_detaches_and_the_device_is_on_the_market_again(gpu_api,
                                                                  a100):
    app = gpu_api.app
    url, owned, lent = _lent_and_attached(gpu_api, a100)
    before = _hostdevs(gpu_api, a100, 'gpu-vm-2')
    shown = _post(app, '/v1/devices/%s/detach' % lent,
                  {'domain': 'gpu-vm-3'}, SPOT_USER, say=True).json['device']
    assert shown['id'] == lent and shown['state'] == 'spot'
    assert _hostdevs(gpu_api, a100, 'gpu-vm-3') == []
    assert _hostdevs(gpu_api, a100, 'gpu-vm-2') == before
    # Still lent: on the market, the attachment row gone.
    rsv = app.get(url, headers=OWNER).json['device_reservation']
    assert rsv['released_device_ids'] == [lent]
    assert rsv['domains'] == ['gpu-vm-2']
    assert [a['domain'] for a in rsv['attachments']] == ['gpu-vm-2']
    assert [(d['id'], d['state']) for d in app.get(
        '/v1/devices', {'spot': 'true'},
        headers=PROJECT_C).json['devices']] == [(lent, 'spot')]
    # Nothing left for a reclaim to terminate.
    assert _post(app, url + '/reclaim', {'dry_run': True}, OWNER).json[
        'would_terminate'] == []
    # Anyone may take it again, the same domain too.
    _post(app, '/v1/devices/%s/attach' % lent,
          {'domain': 'gpu-vm-3', 'tier': 'spot'}, SPOT_USER)
    assert len(_hostdevs(gpu_api, a100, 'gpu-vm-3')) == 1
    done = _post(app, url + '/reclaim', {}, OWNER).json
    assert done['terminated'] == [{'device_id': lent, 'domain': 'gpu-vm-3',
                                   'project_id': 'project-b'}]


def test_spot_detach_refusals(gpu_api, a100):
    app = gpu_api.app
    url, owned, lent = _lent_and_attached(gpu_api, a100)
    detach = '/v1/devices/%s/detach'
    # Below 1.4 the route does not exist.
    assert_error(_post(app, detach % lent, {'domain': 'gpu-vm-3'},
                       dict(MEMBER_B, **V13), expect=404), 404)
    for body in ({}, {'domain': 'gpu-vm-3', 'tier': 'spot'},
                 {'domain': ''}):
        assert_error(_post(app, detach % lent, body, SPOT_USER,
                           expect=400), 400)
    # A device the caller does not see: as for GET, it does not exist.
    assert_error(_post(app, detach % 'no-such-device',
                       {'domain': 'gpu-vm-3'}, SPOT_USER, expect=404), 404)
    assert_error(app.get('/v1/devices/%s' % owned, headers=SPOT_USER,
                         expect_errors=True), 404)
    assert_error(_post(app, detach % owned, {'domain': 'gpu-vm-2'},
                       SPOT_USER, expect=404), 404)
    # One it sees, held by the spot domain of another project: 403,
    # whichever domain it names, the lending reservation's owner too.
    for headers in (PROJECT_C, OWNER):
        for domain in ('gpu-vm-3', 'gpu-vm-1'):
            assert_error(_post(app, detach % lent, {'domain': domain},
                               headers, expect=403), 403)
    # A reader of the spot user's project.
    assert_error(_post(app, detach % lent, {'domain': 'gpu-vm-3'},
                       {'X-User-Id': 'rita', 'X-Project-Id': 'project-b',
                        'X-Roles': 'reader', **V14}, expect=403), 403)
    # A domain that does not hold it.
    gpu_api.own(a100, 'transient-vm', 'project-b')
    assert_error(_post(app, detach % lent, {'domain': 'transient-vm'},
                       SPOT_USER, expect=409), 409,
                 detail_has='not attached to domain transient-vm')
    # A non-spot attachment never goes this way, even for its owner.
    assert_error(_post(app, detach % owned, {'domain': 'gpu-vm-2'}, OWNER,
                       expect=409), 409,
                 detail_has='not a spot attachment')
    assert len(_hostdevs(gpu_api, a100, 'gpu-vm-2')) == 1
    # Nothing changed by any of it.
    assert len(_hostdevs(gpu_api, a100, 'gpu-vm-3')) == 1
    assert app.get('/v1/devices/%s' % lent, headers=SPOT_USER).json[
        'device']['state'] == 'in-use'
    # Reclaimed: the device is the owner's alone again, out of sight.
    _post(app, url + '/reclaim', {}, OWNER)
    assert_error(_post(app, detach % lent, {'domain': 'gpu-vm-3'},
                       SPOT_USER, expect=404), 404)
    # On the market and free: no domain holds it.
    _post(app, url + '/release', {'device_ids': [lent]}, OWNER)
    assert_error(_post(app, detach % lent, {'domain': 'gpu-vm-3'},
                       SPOT_USER, expect=409), 409,
                 detail_has='not attached')


def test_an_administrator_detaches_any_spot_domain(gpu_api, a100):
    app = gpu_api.app
    url, owned, lent = _lent_and_attached(gpu_api, a100)
    admin = dict(ADMIN, **V14)
    assert_error(_post(app, '/v1/devices/%s/detach' % owned,
                       {'domain': 'gpu-vm-2'}, admin, expect=409), 409,
                 detail_has='not a spot attachment')
    shown = _post(app, '/v1/devices/%s/detach' % lent,
                  {'domain': 'gpu-vm-3'}, admin).json['device']
    assert shown['state'] == 'spot'
    assert _hostdevs(gpu_api, a100, 'gpu-vm-3') == []


def test_a_spot_domain_that_changed_owner_is_not_touched(gpu_api, a100):
    app = gpu_api.app
    url, owned, lent = _lent_and_attached(gpu_api, a100)
    gpu_api.own(a100, 'gpu-vm-3', 'project-c')
    assert_error(_post(app, '/v1/devices/%s/detach' % lent,
                       {'domain': 'gpu-vm-3'}, SPOT_USER, expect=409), 409,
                 detail_has='changed owner')
    assert len(_hostdevs(gpu_api, a100, 'gpu-vm-3')) == 1

"""Sharing a reservation from the command line (API 1.9): create
--share, set --share/--unshare/--no-share, and the list in show;
against the API double."""
from osc_lib import exceptions
import pytest

from reserveclient import exceptions as rc_exceptions
from reserveclient.osc.v1 import reservations
from reserveclient.v1 import httpclient

SHARED = 'c0ffee00c0ffee00c0ffee00c0ffee00'
OTHER = '0e5b9b7a-7d54-4c62-9d3e-1a2b3c4d5e6f'


def _booking(api, **values):
    values.setdefault('flavor_id', 'f1')
    values.setdefault('instance_count', 1)
    values.setdefault('start', '2030-01-01T00:00:00Z')
    values.setdefault('end', '2030-01-02T00:00:00Z')
    values.setdefault('status', 'ACTIVE')
    values.setdefault('project_id', 'project-a')
    return api.reservations.add(**values)


def _create(runner, *shares):
    argv = ['--flavor', 'gpu.a100', '--start', '2030-01-01', '--end',
            '2030-01-02']
    for project in shares:
        argv += ['--share', project]
    return runner.json(reservations.CreateReservation, argv)


class TestCreate:

    def test_shared_at_creation(self, runner, api):
        api.flavors.add(id='f1', name='gpu.a100')
        shown = _create(runner, SHARED, OTHER)
        post = [r for r in api.requests if r.method == 'POST'][0]
        assert post.body['shared_project_ids'] == [SHARED, OTHER]
        assert post.headers['OpenStack-API-Version'] == (
            'reserve ' + httpclient.MAX_VERSION)
        assert shown['shared_project_ids'] == sorted([SHARED, OTHER])

    def test_no_share_sends_no_field(self, runner, api):
        api.flavors.add(id='f1', name='gpu.a100')
        _create(runner)
        post = [r for r in api.requests if r.method == 'POST'][0]
        assert 'shared_project_ids' not in post.body

    def test_the_apis_refusal_is_said(self, runner, api):
        api.flavors.add(id='f1', name='gpu.a100')
        with pytest.raises(rc_exceptions.BadRequest) as err:
            _create(runner, SHARED, SHARED)
        assert 'named twice' in str(err.value)
        assert not api.reservations.items

    def test_a_server_before_1_7_is_told_clearly(self, runner, api):
        api.flavors.add(id='f1', name='gpu.a100')
        api.max_version = '1.6'
        with pytest.raises(rc_exceptions.UnsupportedVersion) as err:
            _create(runner, SHARED)
        assert 'needs version 1.9 of the reserve API' in str(err.value)
        assert not [r for r in api.requests if r.method == 'POST']


class TestSet:

    def test_share_and_unshare_one_call_each(self, runner, api):
        booking = _booking(api, shared_project_ids=[SHARED])
        assert runner.output(reservations.SetReservation, [
            booking['id'], '--share', OTHER, '--unshare', SHARED]) == ''
        calls = [(r.method, r.url) for r in api.requests[-2:]]
        path = '/v1/reservations/%s/shared-projects/' % booking['id']
        assert calls == [('PUT', path + OTHER), ('DELETE', path + SHARED)]
        shown = runner.json(reservations.ShowReservation, [booking['id']])
        assert shown['shared_project_ids'] == [OTHER]

    def test_no_share_sets_the_whole_list(self, runner, api):
        booking = _booking(api, shared_project_ids=[SHARED, OTHER])
        runner.take(reservations.SetReservation, [
            booking['id'], '--no-share', '--share', OTHER])
        put = api.requests[-1]
        assert (put.method, put.url, put.body) == (
            'PUT', '/v1/reservations/%s/shared-projects' % booking['id'],
            {'shared_project_ids': [OTHER]})
        assert api.reservations.items[0]['shared_project_ids'] == [OTHER]

    def test_share_and_end_together(self, runner, api):
        booking = _booking(api)
        runner.take(reservations.SetReservation, [
            booking['id'], '--share', SHARED, '--end', '2030-01-05'])
        assert [r.method for r in api.requests[-2:]] == ['PUT', 'PATCH']

    def test_one_project_both_ways(self, runner, api):
        booking = _booking(api)
        with pytest.raises(exceptions.CommandError) as err:
            runner.take(reservations.SetReservation, [
                booking['id'], '--share', SHARED, '--unshare', SHARED])
        assert 'both shared and unshared' in str(err.value)

    def test_a_finished_reservation_keeps_its_list(self, runner, api):
        booking = _booking(api, status='COMPLETE',
                           shared_project_ids=[SHARED])
        with pytest.raises(rc_exceptions.Conflict) as err:
            runner.take(reservations.SetReservation, [
                booking['id'], '--unshare', SHARED])
        assert 'only while it lives' in str(err.value)

    def test_unshare_a_project_not_shared(self, runner, api):
        booking = _booking(api)
        with pytest.raises(rc_exceptions.NotFound) as err:
            runner.take(reservations.SetReservation, [
                booking['id'], '--unshare', SHARED])
        assert 'not shared with project %s' % SHARED in str(err.value)

    def test_nothing_to_set_names_the_share_options(self, runner, api):
        booking = _booking(api)
        with pytest.raises(exceptions.CommandError) as err:
            runner.take(reservations.SetReservation, [booking['id']])
        assert '--share' in str(err.value)

    def test_pinned_below_1_7(self, runner, api):
        runner.pin('1.6')
        booking = _booking(api)
        with pytest.raises(rc_exceptions.UnsupportedVersion):
            runner.take(reservations.SetReservation, [
                booking['id'], '--share', SHARED])
        shown = runner.json(reservations.ShowReservation, [booking['id']])
        assert 'shared_project_ids' not in shown

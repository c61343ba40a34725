"""openstack reserve offer list and reservation create --offer against
the real API (microversion 1.10)."""
import pytest

from reserveclient.tests.functional import base

pytestmark = pytest.mark.functional


def test_search_then_book_an_offer_once(cli, server):
    flavor = base.seed_flavor(server, slots=2)
    # Both slots held on the first day.
    cli('reserve', 'reservation', 'create', '--flavor', flavor['name'],
        '--start', base.future(3), '--end', base.future(4),
        '--instance-count', '2')
    offers = cli.json('reserve', 'offer', 'list', '--flavor',
                      flavor['name'], '--duration', 'P1D', '--count', '2',
                      '--earliest-start', base.future(2),
                      '--latest-start', 'P4D')
    # Nothing before it (a day would meet it, with its guard after); from
    # a minute after it (its guard), back to back.
    assert [o['Start'] for o in offers] == [
        base.future(d).replace('T00:00:00Z', 'T00:01:00Z') for d in (4, 5)]
    assert {o['Instances'] for o in offers} == {2}
    assert {o['Flavor'] for o in offers} == {flavor['name']}

    booked = cli.json('reserve', 'reservation', 'create', '--offer',
                      offers[1]['ID'])
    assert (booked['start'], booked['end'], booked['instance_count']) == (
        offers[1]['Start'], offers[1]['End'], 2)
    err = cli.fails('reserve', 'reservation', 'create', '--offer',
                    offers[1]['ID'])
    assert 'was already booked, as reservation %s' % booked['id'] in err
    assert 'HTTP 409, reserve.offer_used' in err


def test_bad_input_is_the_api_s_message(cli, server):
    flavor = base.seed_flavor(server, slots=1)
    err = cli.fails('reserve', 'offer', 'list', '--flavor', flavor['name'],
                    '--duration', 'P1M')
    assert 'years or months' in err and 'HTTP 400' in err
    err = cli.fails('reserve', 'reservation', 'create', '--offer', 'nope')
    assert 'Offer nope could not be found' in err and 'HTTP 404' in err

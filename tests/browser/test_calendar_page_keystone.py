"""The calendar page against a reserve-all-in-one that authenticates with
keystone (keystonemiddleware, validating tokens with the keystone of
tests.fakes.keystone): the page asks for a token when the API answers
401, takes one a dashboard hands over in its URL, and a project sees
another's booking as busy, with no id or project."""
import datetime
import subprocess
import sys

import pytest

from tests.browser import screenshots
from tests.fakes import keystone as fake_keystone
from tests.fixtures import all_in_one

FLAVOR = 'gpu.a100'
WAIT = 30


def _seed(url):
    subprocess.run([sys.executable, '-m', 'tests.browser.seed', url,
                    '--flavor', FLAVOR], check=True, cwd=all_in_one.REPO,
                   capture_output=True)


@pytest.fixture(scope='module')
def keystone():
    found = fake_keystone.FakeKeystone().start()
    yield found
    found.stop()


@pytest.fixture(scope='module')
def server(keystone):
    domain = fake_keystone.DOMAIN['name']
    config = {
        'api': {'auth_strategy': 'keystone'},
        'keystone_authtoken': {
            'www_authenticate_uri': keystone.auth_url,
            'auth_url': keystone.auth_url, 'auth_type': 'password',
            'username': 'reserve', 'password': 'secret',
            'project_name': 'service', 'user_domain_name': domain,
            'project_domain_name': domain}}
    with all_in_one.AllInOne(config=config, before_start=_seed,
                             prefix='reserve-browser-ks-') as aio:
        yield aio


@pytest.fixture(scope='module')
def tokens(keystone):
    alice = keystone.add_user('alice')
    bob = keystone.add_user('bob')
    return {'a': keystone.user_token(alice, 'project-a', ['member', 'reader']),
            'b': keystone.user_token(bob, 'project-b', ['member', 'reader'])}


@pytest.fixture(scope='module')
def booking(server, tokens):
    start = datetime.datetime.now(datetime.timezone.utc).replace(
        tzinfo=None, microsecond=0) + datetime.timedelta(hours=1)
    return server.call('POST', '/v1/reservations', {
        'flavor_id': FLAVOR, 'start': start.isoformat() + 'Z',
        'end': (start + datetime.timedelta(hours=5)).isoformat() + 'Z'},
        headers={'X-Auth-Token': tokens['a']}, expect=201)['reservation']


def _wait(browser, condition):
    from selenium.webdriver.support import ui
    return ui.WebDriverWait(browser, WAIT).until(condition)


def _bar_of(browser, booking_id=None):
    bars = browser.find_elements('css selector', '#chart .bar')
    return [b for b in bars if 'maintenance' not in b.get_attribute('class')]


def test_the_page_asks_for_a_token_and_uses_it(browser, server, tokens,
                                               booking, artefacts):
    browser.get(server.url + '/calendar/?flavor=%s' % FLAVOR)
    browser.execute_script('window.sessionStorage.clear()')
    browser.get(server.url + '/calendar/?flavor=%s' % FLAVOR)
    box = _wait(browser, lambda b: b.find_element('id', 'token-box')
                if b.find_element('id', 'token-box').is_displayed()
                else None)
    assert 'token' in box.text
    screenshots.save_and_check(browser, artefacts, 'sign-in', chart=False,
                               most_common_at_most=0.995)
    browser.find_element('id', 'token').send_keys(tokens['a'])
    browser.find_element('css selector', '#token-form button').click()
    _wait(browser, lambda b: b.find_element('tag name', 'body')
          .get_attribute('data-drawn'))
    assert not browser.find_element('id', 'token-box').is_displayed()
    bars = _bar_of(browser)
    assert [b.get_attribute('data-id') for b in bars] == [booking['id']]
    assert 'yours' in bars[0].get_attribute('aria-label')


def test_a_dashboard_hands_the_token_over_and_others_see_busy(
        browser, server, tokens, booking, artefacts):
    def drawn(b):
        return int(b.find_element('tag name', 'body')
                   .get_attribute('data-drawn') or 0)

    # The page of the test before is still open: the new token comes as
    # a change of its URL's fragment, as a dashboard would send it.
    before = drawn(browser)
    browser.get(server.url + '/calendar/?flavor=%s#token=%s' % (
        FLAVOR, tokens['b']))
    _wait(browser, lambda b: drawn(b) > before)
    # The token left the URL once taken.
    assert '#token' not in browser.current_url
    bar, = _bar_of(browser)
    assert bar.get_attribute('data-id') is None
    assert bar.text == 'busy'
    assert 'another project' in bar.get_attribute('aria-label')
    assert 'project-a' not in browser.page_source
    screenshots.save_and_check(browser, artefacts, 'flavor-week-other-project')

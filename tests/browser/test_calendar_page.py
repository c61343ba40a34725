"""The calendar page (/calendar/) in headless Chromium, against a
reserve-all-in-one process: the bookings the test made are drawn, a free
stretch is booked through the form, a refusal shows the API's message
and the windows it offers (one click fills the form, which then books
it), the keyboard moves between bars, and every view renders (screenshots in
test-artefacts/calendar/, checked for blank or broken renders)."""
import datetime
import os
import subprocess
import sys
import urllib.parse

import pytest

from tests.browser import screenshots
from tests.fixtures import all_in_one

FLAVOR = 'gpu.a100'
SLOTS = 4
OTHER = {'X-Project-Id': 'project-b', 'X-User-Id': 'bob',
         'X-Roles': 'member,reader'}
WAIT = 30


def _seed(url):
    subprocess.run([sys.executable, '-m', 'tests.browser.seed', url,
                    '--flavor', FLAVOR, '--slots', str(SLOTS)],
                   check=True, cwd=all_in_one.REPO, capture_output=True)


def _iso(when):
    return when.replace(microsecond=0).isoformat() + 'Z'


@pytest.fixture(scope='module')
def server():
    with all_in_one.AllInOne(before_start=_seed,
                             prefix='reserve-browser-') as aio:
        yield aio


@pytest.fixture(scope='module')
def made(server):
    """The test's bookings: two of the page's project (noauth-project)
    today and tomorrow, one of project-b, and a maintenance window, in
    this week; and a device reservation on the embedded GPU host."""
    now = datetime.datetime.now(datetime.timezone.utc).replace(tzinfo=None)
    hour = datetime.timedelta(hours=1)
    soon = now + hour
    mine = server.call('POST', '/v1/reservations', {
        'flavor_id': FLAVOR, 'start': _iso(soon), 'end': _iso(soon + 6 * hour),
        'instance_count': 2}, expect=201)['reservation']
    later = server.call('POST', '/v1/reservations', {
        'flavor_id': FLAVOR, 'start': _iso(soon + 26 * hour),
        'end': _iso(soon + 30 * hour), 'instance_count': 1},
        expect=201)['reservation']
    theirs = server.call('POST', '/v1/reservations', {
        'flavor_id': FLAVOR, 'start': _iso(soon + 2 * hour),
        'end': _iso(soon + 10 * hour), 'instance_count': 1},
        headers=OTHER, expect=201)['reservation']
    flavor = server.call('GET', '/v1/flavors/%s' % FLAVOR)['flavor']
    # Between the others, so that it is in the week's view (today and the
    # six days after) as they are.
    window = server.call('POST', '/v1/maintenance-windows', {
        'start': _iso(soon + 11 * hour), 'end': _iso(soon + 13 * hour),
        'flavors': [flavor['id']], 'note': 'firmware'},
        headers=all_in_one.ADMIN, expect=201)['maintenance_window']
    devices = server.call('POST', '/v1/device-reservations', {
        'device_count': 1, 'host': 'gpu-a100-01', 'start': _iso(soon),
        'end': _iso(soon + 8 * hour)}, expect=201)['device_reservation']
    return {'mine': [mine, later], 'theirs': theirs, 'window': window,
            'devices': devices, 'flavor': flavor}


def _open(browser, server, **query):
    browser.get('%s/calendar/?%s' % (server.url,
                                     urllib.parse.urlencode(query)))
    return _drawn(browser)


def _drawn(browser, before=0):
    from selenium.webdriver.support import ui
    ui.WebDriverWait(browser, WAIT).until(
        lambda b: int(b.find_element('tag name', 'body')
                      .get_attribute('data-drawn') or 0) > before)
    return int(browser.find_element('tag name', 'body')
               .get_attribute('data-drawn'))


def _bars(browser):
    return browser.find_elements('css selector', '#chart .bar')


def _errors_in_console(browser):
    return [entry for entry in browser.get_log('browser')
            if entry['level'] == 'SEVERE']


def test_the_week_shows_the_bookings_made(browser, server, made,
                                          artefacts):
    _open(browser, server, flavor=FLAVOR, range='week')
    rows = browser.find_elements('css selector', '#chart .row:not(.axis)')
    labels = [r.find_element('css selector', '.row-label').text
              for r in rows]
    assert labels == ['slot 1', 'slot 2', 'slot 3', 'slot 4', 'Free']
    bars = _bars(browser)
    ids = [b.get_attribute('data-id') for b in bars]
    # The page's project is an administrator on the noauth API: every
    # booking has its id; the other project's is drawn as another's.
    assert ids.count(made['mine'][0]['id']) == 2    # two instances
    theirs = [b for b in bars
              if b.get_attribute('data-id') == made['theirs']['id']]
    assert len(theirs) == 1
    assert 'busy' in theirs[0].get_attribute('class')
    assert 'project-b' in theirs[0].get_attribute('aria-label')
    maintenance = [b for b in bars if 'maintenance' in
                   b.get_attribute('class')]
    assert len(maintenance) == SLOTS
    assert 'firmware' in maintenance[0].get_attribute('aria-label')
    now = browser.find_elements('css selector', '#chart .now')
    assert len(now) == 1 and now[0].text == 'now'
    legend = browser.find_element('id', 'legend').text
    for word in ('ACTIVE', 'busy', 'maintenance', 'Free row'):
        assert word in legend
    assert _errors_in_console(browser) == []
    screenshots.save_and_check(browser, artefacts, 'flavor-week')


@pytest.mark.parametrize('view', ['day', 'month'])
def test_the_day_and_month_views_render(browser, server, made, artefacts,
                                        view):
    # Opened on the day the first booking starts: an hour from now is
    # tomorrow late in the evening, and next month on a month's last day.
    day = made['mine'][0]['start'][:10]
    _open(browser, server, flavor=FLAVOR, range=view, date=day)
    assert _bars(browser)
    period = browser.find_element('id', 'period').text
    assert period.startswith(day if view == 'day' else day[:8] + '01')
    ticks = browser.find_elements('css selector', '#chart .tick')
    assert len(ticks) == (8 if view == 'day' else
                          len(set(t.text for t in ticks)))
    assert _errors_in_console(browser) == []
    screenshots.save_and_check(browser, artefacts, 'flavor-%s' % view)


def test_a_gpu_host_shows_its_devices_and_their_reservation(
        browser, server, made, artefacts):
    _open(browser, server, host='gpu-a100-01', range='week')
    labels = [e.text for e in browser.find_elements(
        'css selector', '#chart .row:not(.axis):not(.free) .row-label')]
    assert labels and all(label.startswith('0000:') for label in labels)
    ids = [b.get_attribute('data-id') for b in _bars(browser)]
    assert ids == [made['devices']['id']]
    screenshots.save_and_check(browser, artefacts, 'host-week')


def _free_button(browser):
    """The widest free stretch of the week: the days after the test's
    bookings, which a click reaches at any hour. (The first stretch, from
    midnight to the first booking, is a sliver under its neighbour just
    after midnight.)"""
    steps = browser.find_elements('css selector', '#chart button.free-step')
    return max(steps, key=lambda step: step.size['width'])


def test_book_a_free_stretch_through_the_form(browser, server, made,
                                              artefacts):
    drawn = _open(browser, server, flavor=FLAVOR, range='week')
    before = len(server.call('GET', '/v1/reservations')['reservations'])
    _free_button(browser).click()
    dialog = browser.find_element('id', 'booking')
    assert dialog.get_attribute('open') is not None
    screenshots.save_and_check(browser, artefacts, 'booking-form')
    # Snap to a window that fits, then book it.
    browser.find_element('id', 'booking-snap').click()
    from selenium.webdriver.support import ui
    ui.WebDriverWait(browser, WAIT).until(
        lambda b: 'window that fits' in b.find_element(
            'id', 'booking-hint').text or
        b.find_element('id', 'booking-error').text)
    assert browser.find_element('id', 'booking-error').text == ''
    browser.find_element('id', 'booking-submit').click()
    _drawn(browser, drawn)
    message = browser.find_element('id', 'message').text
    assert message.startswith('Booked: reservation '), message
    booked = message.split()[2].rstrip(',')
    listed = server.call('GET', '/v1/reservations')['reservations']
    assert len(listed) == before + 1
    assert booked in [r['id'] for r in listed]
    assert booked in [b.get_attribute('data-id') for b in _bars(browser)]


def test_a_refusal_shows_the_api_s_message(browser, server, made,
                                           artefacts):
    _open(browser, server, flavor=FLAVOR, range='week')
    _free_button(browser).click()
    count = browser.find_element('id', 'booking-count')
    count.clear()
    count.send_keys(str(SLOTS + 5))
    browser.execute_script(
        "document.getElementById('booking-count').removeAttribute('max')")
    start = browser.find_element('id', 'booking-start').get_attribute(
        'value')
    end = browser.find_element('id', 'booking-end').get_attribute('value')
    browser.find_element('id', 'booking-submit').click()
    from selenium.webdriver.support import ui
    error = ui.WebDriverWait(browser, WAIT).until(
        lambda b: b.find_element('id', 'booking-error').text)
    # The very message the API gives the same request.
    refused = server.call('POST', '/v1/reservations', {
        'flavor_id': made['flavor']['id'], 'start': start + ':00Z',
        'end': end + ':00Z', 'instance_count': SLOTS + 5},
        expect=409)
    assert error == refused['errors'][0]['detail']
    assert browser.find_element('id', 'booking').get_attribute(
        'open') is not None
    screenshots.save_and_check(browser, artefacts, 'booking-refused')
    browser.find_element('id', 'booking-cancel').click()


def _refuse_in_the_form(browser, start, end, count):
    """Put a window and a count in the open form and book them."""
    browser.execute_script(
        "var count = document.getElementById('booking-count');"
        "count.removeAttribute('max'); count.value = arguments[2];"
        "document.getElementById('booking-start').value = arguments[0];"
        "document.getElementById('booking-end').value = arguments[1];",
        start, end, str(count))
    browser.find_element('id', 'booking-submit').click()


def test_a_refusal_offers_windows_that_book_in_one_click(
        browser, server, made, artefacts):
    from selenium.webdriver.support import ui
    _open(browser, server, flavor=FLAVOR, range='week')
    _free_button(browser).click()
    # Three hours into the page project's booking of two, the other
    # project's booking of one runs too (and the form's earlier booking
    # may): two more do not fit.
    start = datetime.datetime.fromisoformat(
        made['mine'][0]['start'].rstrip('Z')) + datetime.timedelta(hours=3)
    end = start + datetime.timedelta(hours=2)
    asked = [when.strftime('%Y-%m-%dT%H:%M') for when in (start, end)]
    _refuse_in_the_form(browser, asked[0], asked[1], 2)
    buttons = ui.WebDriverWait(browser, WAIT).until(
        lambda b: b.find_elements('css selector', '#booking-offer button'))
    assert browser.find_element('id', 'booking-error').text.startswith(
        'No capacity: 2 instance(s)')
    # The windows the API offers the same request.
    offer = server.call('POST', '/v1/reservations', {
        'flavor_id': made['flavor']['id'], 'start': asked[0] + ':00Z',
        'end': asked[1] + ':00Z', 'instance_count': 2},
        expect=409)['errors'][0]['counter_offer']
    shown = {b.get_attribute('data-offer'): b for b in buttons}
    assert offer['after'] is not None
    assert set(shown) == {side for side in ('before', 'after')
                          if offer[side]} | (
        {'most'} if offer['max_instance_count'] else set())
    assert shown['after'].text == 'Later: %s UTC to %s UTC' % (
        offer['after']['start'][:16].replace('T', ' '),
        offer['after']['end'][:16].replace('T', ' '))
    screenshots.save_and_check(browser, artefacts, 'booking-counter-offer')
    # One click fills the form with the later window; booking it books
    # that very window.
    shown['after'].click()
    assert [browser.find_element('id', 'booking-' + field).get_attribute(
        'value') for field in ('start', 'end', 'count')] == [
        offer['after']['start'][:16], offer['after']['end'][:16], '2']
    assert browser.find_elements('css selector',
                                 '#booking-offer button') == []
    drawn = int(browser.find_element('tag name', 'body')
                .get_attribute('data-drawn'))
    browser.find_element('id', 'booking-submit').click()
    _drawn(browser, drawn)
    message = browser.find_element('id', 'message').text
    assert message.startswith('Booked: reservation '), message
    booked = server.call('GET', '/v1/reservations/%s' % message.split()[
        2].rstrip(','))['reservation']
    assert (booked['start'], booked['end'], booked['instance_count']) == (
        offer['after']['start'], offer['after']['end'], 2)


def test_the_keyboard_moves_between_bars(browser, server, made):
    from selenium.webdriver.common import keys
    _open(browser, server, flavor=FLAVOR, range='week')
    first = _bars(browser)[0]
    first.send_keys(keys.Keys.NULL)
    browser.execute_script('arguments[0].focus()', first)
    first.send_keys(keys.Keys.ARROW_RIGHT)
    focused = browser.switch_to.active_element
    assert focused != first
    assert focused.tag_name == 'button'
    focused.send_keys(keys.Keys.ARROW_DOWN)
    below = browser.switch_to.active_element
    assert below.tag_name == 'button'
    assert below.get_attribute('aria-label')


def test_the_page_is_served_with_its_guards(server):
    import urllib.request
    with urllib.request.urlopen(server.url + '/calendar/') as got:
        assert got.status == 200
        assert "default-src 'none'" in got.headers[
            'Content-Security-Policy']
        assert got.headers['X-Content-Type-Options'] == 'nosniff'
        body = got.read().decode()
    # Nothing from elsewhere: no CDN, no build.
    assert 'http://' not in body and 'https://' not in body
    assert os.path.exists(os.path.join(
        all_in_one.REPO, 'reserve', 'api', 'static', 'calendar',
        'calendar.js'))

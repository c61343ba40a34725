"""Fixtures of the browser tests: headless Chromium (Debian's chromium
and chromium-driver, driven by Selenium) against a reserve-all-in-one
process (tests.fixtures.all_in_one) with a GPU flavor in its catalogue.

Screenshots go to test-artefacts/calendar/ at the top of the checkout
(RESERVE_TEST_ARTEFACTS overrides the folder). Without Chromium the
tests are skipped, unless RESERVE_TEST_REQUIRE_BACKENDS=1 (CI), where
they fail.
"""
import os
import shutil

import pytest

from tests.fixtures import all_in_one

CHROMIUM = ('/usr/bin/chromium', '/usr/bin/chromium-browser')
CHROMEDRIVER = '/usr/bin/chromedriver'
ARTEFACTS = os.environ.get('RESERVE_TEST_ARTEFACTS') or os.path.join(
    all_in_one.REPO, 'test-artefacts')


def _chromium():
    found = [path for path in CHROMIUM if os.access(path, os.X_OK)]
    if not found or not os.access(CHROMEDRIVER, os.X_OK):
        why = ('headless Chromium is not installed (apt-get install '
               'chromium chromium-driver)')
        if os.environ.get('RESERVE_TEST_REQUIRE_BACKENDS') == '1':
            pytest.fail(why)
        pytest.skip(why)
    return found[0]


@pytest.fixture(scope='module')
def browser():
    binary = _chromium()
    from selenium import webdriver
    from selenium.webdriver.chrome import service
    options = webdriver.ChromeOptions()
    options.binary_location = binary
    for argument in ('--headless=new', '--no-sandbox', '--disable-gpu',
                     '--disable-dev-shm-usage', '--window-size=1400,900',
                     '--force-device-scale-factor=1', '--lang=en-US'):
        options.add_argument(argument)
    options.set_capability('goog:loggingPrefs', {'browser': 'ALL'})
    # The system's chromedriver: Selenium must not fetch one.
    driver = webdriver.Chrome(
        options=options, service=service.Service(executable_path=CHROMEDRIVER))
    driver.set_page_load_timeout(60)
    try:
        yield driver
    finally:
        driver.quit()


@pytest.fixture(scope='session')
def artefacts():
    folder = os.path.join(ARTEFACTS, 'calendar')
    shutil.rmtree(folder, ignore_errors=True)
    os.makedirs(folder)
    return folder

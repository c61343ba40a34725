"""How fast the calendar page shows a busy flavor: page load to first
paint, and to the chart drawn, of a week of a flavor holding --bookings
bookings (1,000) in headless Chromium, against a reserve-all-in-one
process; and the time of the GET /v1/calendar it draws.

Not a test: a script that prints figures.

    .venv/bin/python tests/benchmarks/bench_calendar_page.py
    .venv/bin/python tests/benchmarks/bench_calendar_page.py \\
        --bookings 10000 --slots 40 --loads 5

The bookings are spread over the four weeks around now (tests/browser/
seed.py), so a week shows about a quarter of them. Each load is a new
navigation to /calendar/?flavor=...&range=week, timed by the browser's
own clock: first-contentful-paint (the page's controls) and the
'calendar-drawn' mark the script sets once the chart is in the page.
"""
import argparse
import os
import statistics
import subprocess
import sys
import time
import urllib.request

REPO = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
sys.path.insert(0, REPO)

from tests.browser import conftest as browser_fixtures  # noqa: E402
from tests.fixtures import all_in_one  # noqa: E402

FLAVOR = 'gpu.busy'


def _browser():
    from selenium import webdriver
    from selenium.webdriver.chrome import service
    options = webdriver.ChromeOptions()
    options.binary_location = [
        p for p in browser_fixtures.CHROMIUM if os.access(p, os.X_OK)][0]
    for argument in ('--headless=new', '--no-sandbox', '--disable-gpu',
                     '--disable-dev-shm-usage', '--window-size=1400,900'):
        options.add_argument(argument)
    return webdriver.Chrome(options=options, service=service.Service(
        executable_path=browser_fixtures.CHROMEDRIVER))


def _one_load(driver, url):
    driver.get(url)
    deadline = time.monotonic() + 60
    while True:
        found = driver.execute_script("""
            var drawn = performance.getEntriesByName('calendar-drawn');
            var paint = performance.getEntriesByName(
                'first-contentful-paint');
            if (!drawn.length) { return null; }
            return {drawn: drawn[0].startTime,
                    paint: paint.length ? paint[0].startTime : null,
                    bars: document.querySelectorAll('#chart .bar').length};
        """)
        if found:
            return found
        if time.monotonic() > deadline:
            raise RuntimeError('the chart was not drawn within 60 s')
        time.sleep(0.02)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--bookings', type=int, default=1000)
    parser.add_argument('--slots', type=int, default=10)
    parser.add_argument('--loads', type=int, default=10)
    args = parser.parse_args()

    def seed(url):
        subprocess.run([sys.executable, '-m', 'tests.browser.seed', url,
                        '--flavor', FLAVOR, '--slots', str(args.slots),
                        '--bookings', str(args.bookings)],
                       check=True, cwd=REPO, stdout=subprocess.DEVNULL)

    with all_in_one.AllInOne(before_start=seed,
                             prefix='bench-calendar-page-') as server:
        api = []
        for _ in range(args.loads):
            began = time.perf_counter()
            request = urllib.request.Request(
                server.url + '/v1/calendar?flavor_id=%s' % FLAVOR,
                headers=all_in_one.LATEST)
            with urllib.request.urlopen(request) as got:
                got.read()
            api.append((time.perf_counter() - began) * 1000)
        driver = _browser()
        try:
            url = '%s/calendar/?flavor=%s&range=week' % (server.url, FLAVOR)
            _one_load(driver, url)    # warm: the first start of the tab
            loads = [_one_load(driver, url) for _ in range(args.loads)]
        finally:
            driver.quit()
    paint = [load['paint'] for load in loads if load['paint'] is not None]
    drawn = [load['drawn'] for load in loads]
    print('calendar page: a week of a flavor of %d bookings on %d slots '
          '(%d bars drawn), %d loads' % (args.bookings, args.slots,
                                         loads[0]['bars'], args.loads))
    print('%-38s %8s %8s' % ('', 'p50 ms', 'max ms'))
    for name, values in (('GET /v1/calendar (the week from now)', api),
                         ('first contentful paint', paint),
                         ('chart drawn', drawn)):
        print('%-38s %8.1f %8.1f' % (name, statistics.median(values),
                                     max(values)))


if __name__ == '__main__':
    main()

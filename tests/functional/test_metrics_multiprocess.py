"""/metrics under several API processes, as gunicorn's workers run it.

With PROMETHEUS_MULTIPROC_DIR set before prometheus_client is imported,
each process writes its counters and histograms to its own files there;
a scrape, answered by any process, sums them all. Each process below is
a whole application (reserve.api.app.setup_app) on one shared SQLite
database, run in a Python of its own: two answer requests and exit, a
third scrapes.
"""
import os
import pathlib
import subprocess
import sys

from prometheus_client import parser
import pytest

from reserve.api import app as api_app
from reserve.metrics import exposition
from tests.functional.api_fixtures import *  # noqa: F401,F403

ROOT = pathlib.Path(__file__).resolve().parents[2]

# One API process: the application on the database named by argv[1],
# GET /v1 argv[2] times (a public path: no identity needed), then
# prints the answer of /metrics when argv[3] says so.
PROCESS = '''
import sys

from oslo_config import cfg
from oslo_messaging import conffixture
import webtest

from reserve.api import app as api_app
from reserve import conf  # noqa: F401
from reserve.db import api as db_api
from reserve.db import models

CONF = cfg.CONF
conffixture.ConfFixture(CONF)
CONF([], project='reserve', default_config_files=[])
CONF.set_override('connection', sys.argv[1], group='database')
CONF.set_override('auth_strategy', 'noauth', group='api')
CONF.set_override('transport_url', 'fake://')
models.Base.metadata.create_all(db_api.get_engine())
app = webtest.TestApp(api_app.setup_app(),
                      extra_environ={'REMOTE_ADDR': '127.0.0.1'})
for _ in range(int(sys.argv[2])):
    app.get('/v1')
if sys.argv[3] == 'scrape':
    sys.stdout.write(app.get('/metrics').text)
'''


def _run(metrics_dir, url, requests, scrape=False):
    env = dict(os.environ, PROMETHEUS_MULTIPROC_DIR=str(metrics_dir),
               PYTHONPATH=str(ROOT), PYTHONWARNINGS='ignore')
    done = subprocess.run(
        [sys.executable, '-c', PROCESS, url, str(requests),
         'scrape' if scrape else 'no'],
        env=env, cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout


def _count(text, route):
    for family in parser.text_string_to_metric_families(text):
        for sample in family.samples:
            if (sample.name == 'reserve_api_request_duration_seconds_count'
                    and sample.labels == {'method': 'GET', 'route': route,
                                          'status': '200'}):
                return sample.value
    return 0


def test_a_scrape_sums_every_process(tmp_path):
    metrics_dir = tmp_path / 'metrics'
    metrics_dir.mkdir()
    url = 'sqlite:///%s' % (tmp_path / 'api.sqlite')
    _run(metrics_dir, url, 3)
    _run(metrics_dir, url, 4)
    text = _run(metrics_dir, url, 0, scrape=True)
    # Each process wrote its own files; the scrape added them up.
    assert len(list(metrics_dir.glob('histogram_*.db'))) >= 2
    assert _count(text, '/v1') == 7
    # What the database holds is in the same scrape.
    assert 'reserve_metrics_database_up 1.0' in text
    assert 'reserve_bookings{status="ACTIVE"} 0.0' in text


def test_a_multiprocess_dir_that_is_not_there_stops_the_api(
        api, tmp_path, monkeypatch):
    monkeypatch.setenv(exposition.MULTIPROC_ENV, str(tmp_path / 'gone'))
    with pytest.raises(exposition.MultiprocessDirMissing, match='gone'):
        api_app.setup_app()

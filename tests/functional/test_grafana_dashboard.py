"""etc/grafana/reserve-dashboard.json: a Grafana dashboard of /metrics.

It loads as a dashboard with a Prometheus datasource variable every
panel queries through, and every metric its panels query is one
/metrics exports (read from a real scrape's families, so a metric
renamed or dropped fails here).
"""
import json
import pathlib
import re

from prometheus_client import parser

from tests.functional.api_fixtures import *  # noqa: F401,F403
from tests.functional.api_fixtures import ADMIN

DASHBOARD = (pathlib.Path(__file__).resolve().parents[2] / 'etc' /
             'grafana' / 'reserve-dashboard.json')
METRIC = re.compile(r'\b(reserve_[a-z0-9_]+)')
DATASOURCE = {'type': 'prometheus', 'uid': '${datasource}'}
SUFFIXES = {'counter': ('_total',), 'gauge': ('',),
            'histogram': ('_bucket', '_sum', '_count'),
            'gaugehistogram': ('_bucket', '_gsum', '_gcount')}


def _dashboard():
    return json.loads(DASHBOARD.read_text())


def _targets(dashboard):
    return [(panel, target) for panel in dashboard['panels']
            for target in panel['targets']]


def exported(text):
    """The names of the samples a scrape may carry, from its families
    (a labelled counter nothing counted yet has a family, no sample)."""
    names = set()
    for family in parser.text_string_to_metric_families(text):
        names.update(family.name + suffix
                     for suffix in SUFFIXES.get(family.type, ('',)))
    return names


def test_it_is_a_dashboard_with_a_prometheus_datasource_variable():
    dashboard = _dashboard()
    assert dashboard['title'] and dashboard['uid']
    assert isinstance(dashboard['schemaVersion'], int)
    variables = {v['name']: v for v in dashboard['templating']['list']}
    assert variables['datasource']['type'] == 'datasource'
    assert variables['datasource']['query'] == 'prometheus'
    ids = [panel['id'] for panel in dashboard['panels']]
    assert len(ids) == len(set(ids))
    for panel in dashboard['panels']:
        assert panel['datasource'] == DATASOURCE, panel['title']
        assert set(panel['gridPos']) == {'h', 'w', 'x', 'y'}
        assert panel['targets'], panel['title']
    for panel, target in _targets(dashboard):
        assert target['datasource'] == DATASOURCE, panel['title']
        assert target['refId'] and target['expr'], panel['title']


def test_every_metric_it_queries_is_exported(api):
    text = api.get('/metrics', headers=ADMIN).text
    names = exported(text)
    queried = {name for _, target in _targets(_dashboard())
               for name in METRIC.findall(target['expr'])}
    for variable in _dashboard()['templating']['list']:
        queried.update(METRIC.findall(variable.get('definition', '')))
    assert queried
    assert sorted(queried - names) == []
    # Each family of /metrics has a panel.
    families = {f.name for f in parser.text_string_to_metric_families(text)
                if not f.name.endswith(('_gsum', '_gcount'))}
    shown = {name for name in families
             if any(q.startswith(name) for q in queried)}
    assert sorted(families - shown) == []

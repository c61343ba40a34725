"""The short chaos run (tests/integration/chaos.py's SHORT profile):
40 bookings and 20 device reservations over a minute through two of
each daemon on MariaDB, a daemon killed every 8-15 s, RabbitMQ restarted
once, 5% of nova and placement calls failing. Every line of the checker
is 0. The long run, which also restarts the database, is
tools/chaos.py."""
import uuid

import pytest

from tests.fixtures import backends
from tests.integration import chaos
from tests.integration import cloud

pytestmark = pytest.mark.integration


def test_short_chaos_run_breaks_nothing(openstack_cloud, tmp_path):
    nova = cloud.nova_client('admin', 'admin', 'admin')
    flavor = nova.flavors.create('chaos-%s' % uuid.uuid4().hex[:6],
                                 ram=256, vcpus=1, disk=1)
    try:
        with backends.throwaway_database('mysql', tmp_path) as url:
            daemons, proxies = chaos.deploy(url, chaos.SHORT)
            try:
                chaos.enroll(daemons)
                entry = chaos.catalogue(daemons, flavor.id)
                figures = chaos.Chaos(daemons, entry['id'],
                                      chaos.SHORT).run()
            finally:
                daemons.stop()
                daemons.clean_cloud()
                for proxy in proxies:
                    proxy.stop()
    finally:
        flavor.delete()
    chaos.report(figures)
    assert figures['bookings accepted'] >= 10, figures
    assert figures['device reservations accepted'] >= 5, figures
    for line in chaos.MUST_BE_ZERO:
        assert figures[line] == 0, (line, figures)

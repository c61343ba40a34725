"""Test support shipped beside reserve: libvirt's test driver completed
with mdev creation and hot-plug, for the tests, the quick start and
reserve-all-in-one's embedded GPU hosts.

* ``libvirt_host``: ``opener()`` and its ``FakeConnect``; its node
  devices in ``node_devices``, its errors in ``libvirt_errors``.
* ``shared_host``: one such host served to several processes
  (``python -m reserve_fakes.shared_host --socket PATH``).

Nothing under reserve/ imports this package: reserve.devices.hosts
reaches its openers by name (entry points ``reserve.virt.openers``) when
[devices]fake_test_driver is set.
"""

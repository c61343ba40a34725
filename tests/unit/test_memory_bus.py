"""The all-in-one's in-memory bus delivers without spinning."""
import socket
import threading
import time

import kombu
import pytest
from kombu.transport import memory
from oslo_config import cfg

from reserve.common import memory_bus


def _cpu_of_this_thread():
    return time.thread_time()


def test_memory_urls_use_the_patient_transport():
    memory_bus.install()
    with kombu.Connection('memory:///') as conn:
        conn.connect()
        assert isinstance(conn.transport, memory_bus.Transport)
        # what oslo.messaging does to every memory:// connection: ignored,
        # the transport never polls
        conn.transport.polling_interval = 0.0
        assert conn.transport.polling_interval is None


def test_waiting_for_a_message_sleeps_and_a_message_arrives():
    memory_bus.install()
    received = []
    with kombu.Connection('memory:///') as conn:
        conn.transport.polling_interval = 0.0
        queue = kombu.Queue('bus-test', kombu.Exchange('bus-test'), 'k')
        with conn.Consumer(queue, callbacks=[
                lambda body, msg: (received.append(body), msg.ack())]):
            def publish():
                time.sleep(0.3)
                with kombu.Connection('memory:///') as other:
                    other.Producer().publish('hello', exchange='bus-test',
                                             routing_key='k',
                                             declare=[queue])
            threading.Thread(target=publish).start()
            cpu = _cpu_of_this_thread()
            start = time.monotonic()
            conn.drain_events(timeout=2)
            waited = time.monotonic() - start
            cpu = _cpu_of_this_thread() - cpu
    assert received == ['hello']
    assert waited < 1.0
    # a spinning poll would have burnt about as much CPU as it waited
    assert cpu < waited / 3, (cpu, waited)
    # Its channels are the memory transport's, with a signal on put.
    assert issubclass(memory_bus.Transport.Channel,
                      memory.Transport.Channel)


def test_an_idle_wait_burns_no_cpu_and_times_out():
    memory_bus.install()
    with kombu.Connection('memory:///') as conn:
        queue = kombu.Queue('bus-idle', kombu.Exchange('bus-idle'), 'k')
        with conn.Consumer(queue, callbacks=[lambda body, msg: None]):
            cpu = _cpu_of_this_thread()
            start = time.monotonic()
            with pytest.raises(socket.timeout):
                conn.drain_events(timeout=1)
            waited = time.monotonic() - start
            cpu = _cpu_of_this_thread() - cpu
    assert 0.9 <= waited < 2
    assert cpu < 0.05, cpu


def test_a_memory_connection_names_no_host_and_warns_nothing(caplog):
    memory_bus.install()
    with caplog.at_level('WARNING', logger='kombu.connection'):
        with kombu.Connection('memory:///') as conn:
            conn.connect()
            assert conn.info()['hostname'] is None
    assert caplog.records == []


def test_the_memory_bus_turns_heartbeats_off_unless_configured():
    conf = cfg.ConfigOpts()
    conf([], default_config_files=[])
    memory_bus.configure(conf)
    assert conf.oslo_messaging_rabbit.heartbeat_timeout_threshold == 0
    conf.set_override('heartbeat_timeout_threshold', 30,
                      group='oslo_messaging_rabbit')
    memory_bus.configure(conf)
    assert conf.oslo_messaging_rabbit.heartbeat_timeout_threshold == 30

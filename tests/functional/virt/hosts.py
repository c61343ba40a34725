"""Helpers for tests on the GPU host definitions of etc/reserve/gpu-hosts."""
import pathlib

import libvirt

from reserve.virt import connection
from reserve.virt import host_definitions

HOSTS = pathlib.Path(__file__).parents[3] / 'etc' / 'reserve' / 'gpu-hosts'


def open_host(name, opener=None, path=None):
    """A HostConnection on a host definition (by file name, or path)."""
    return connection.HostConnection(
        host_definitions.host_uri(path or HOSTS / name), opener=opener)


def close_hosts():
    """Close and forget every connection get_host opened."""
    with connection._HOSTS_LOCK:
        found = list(connection._HOSTS.values())
        connection._HOSTS.clear()
    for host in found:     # outside the global lock: a host may be busy
        host.close()


def libvirt_conn(host):
    """The libvirt connection a HostConnection owns (to look behind it)."""
    return host._libvirt


def domain_xml(host, name, inactive=False):
    return libvirt_conn(host).lookupByName(name).XMLDesc(
        libvirt.VIR_DOMAIN_XML_INACTIVE if inactive else 0)


def restart(host, name):
    dom = libvirt_conn(host).lookupByName(name)
    if dom.isActive():
        dom.destroy()
    dom.create()

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

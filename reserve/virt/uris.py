"""Which libvirt URIs reserve connects to.

A libvirt URI can do much more than name a host:
``qemu+ext:///system?command=/x`` runs /x on the manager host;
``socket=``, ``netcat=`` and ``proxy=`` redirect the connection or run
another program; ``keyfile=``, ``pkipath=`` and ``known_hosts=`` make the
client read local files; ``name=`` makes the far side open another URI;
``qemu:///embed?root=`` runs a QEMU driver inside the manager; and
``test:///<file>`` makes libvirt parse any local file (and quote it in
its error).

``check(uri)`` lets through only the forms the operator allows: a scheme
of [devices]libvirt_uri_schemes, a host for a remote transport (none for
a local one), the path ``/system`` or ``/session``, and no query
parameter but those that only tune the transport (SAFE_PARAMS).
``test:///default`` and ``test:///<path>.xml`` pass only with
[devices]fake_test_driver. The API calls it before it asks the manager
to enroll a host, and reserve.virt.connection.get_host before it opens
any connection, so that a host enrolled before the list changed is
refused too.
"""
import re
from urllib import parse

from oslo_config import cfg

from reserve.common import exception
from reserve import conf as reserve_conf  # noqa: F401 (registers options)

CONF = cfg.CONF

# Transports that reach another host, named in the URI.
REMOTE_TRANSPORTS = ('tls', 'ssh', 'libssh', 'libssh2', 'tcp')
# Transports of the manager's own host: no host in the URI.
LOCAL_TRANSPORTS = ('', 'unix')
# Query parameters that only tune the transport; every other one (command,
# socket, netcat, proxy, keyfile, pkipath, known_hosts, name, no_verify,
# ...) runs, reads or redirects something, or weakens verification.
SAFE_PARAMS = ('no_tty', 'mode', 'sshauth', 'tls_priority')
PATHS = ('/system', '/session')

_SCHEME = re.compile(r'^[a-z][a-z0-9]*(\+[a-z0-9]+)?$')
# [user@]host[:port]: no option-like host (-oProxyCommand=...), no
# password, no escapes.
_NETLOC = re.compile(
    r'^(?:[A-Za-z0-9_][A-Za-z0-9._-]{0,63}@)?'
    r'(?:[A-Za-z0-9](?:[A-Za-z0-9.-]{0,252}[A-Za-z0-9])?'
    r'|\[[0-9A-Fa-f:.]{2,45}\])'
    r'(?::[0-9]{1,5})?$')
_VALUE = re.compile(r'^[A-Za-z0-9_.,:+!-]{0,128}$')
_TEST_PATH = re.compile(r'^/[A-Za-z0-9_./+-]*\.xml$')
_PRINTABLE = re.compile(r'^[\x21-\x7e]+$')


def schemes():
    """The schemes the operator allows (lower case, test left out: it
    needs fake_test_driver)."""
    return [s.strip().lower() for s in CONF.devices.libvirt_uri_schemes
            if s.strip() and s.strip().lower() != 'test']


def _form(scheme):
    transport = scheme.partition('+')[2]
    if transport in REMOTE_TRANSPORTS:
        return '%s://[user@]host[:port]/system' % scheme
    if transport in LOCAL_TRANSPORTS:
        return '%s:///system' % scheme
    return None


def allowed_forms():
    """The URIs check() takes, in words, for its error message."""
    forms = [f for f in map(_form, schemes()) if f]
    text = ('%s (or /session), with no query parameter but %s' % (
        ', '.join(forms), ', '.join(SAFE_PARAMS)) if forms
        else 'no remote host')
    if CONF.devices.fake_test_driver:
        text += '; test:///default and test:///<path>.xml'
    return ('%s; set by [devices]libvirt_uri_schemes (test:/// only with '
            '[devices]fake_test_driver)' % text)


def _refuse(reason):
    raise exception.LibvirtUriNotAllowed(reason=reason,
                                         allowed=allowed_forms())


def _check_test(split):
    if not CONF.devices.fake_test_driver:
        _refuse('test:/// (libvirt\'s test driver) is for tests only and '
                '[devices]fake_test_driver is off')
    if split.netloc or split.query or split.fragment:
        _refuse('a test:/// URI has no host and no query')
    if split.path != '/default' and (not _TEST_PATH.match(split.path) or
                                     '/../' in split.path):
        _refuse('a test:/// URI names libvirt\'s default host or a host '
                'definition: an absolute path ending in .xml')


def _check_query(query):
    # libvirt splits on both & and ; and unescapes names and values.
    for item in re.split('[&;]', query):
        name, sep, value = item.partition('=')
        name = parse.unquote_plus(name).strip().lower()
        if name not in SAFE_PARAMS:
            _refuse('query parameter %s is not allowed' % (
                name if re.match(r'^[a-z0-9_]{1,32}$', name)
                else '(unreadable name)'))
        if not sep or not _VALUE.match(value):
            _refuse('query parameter %s has no plain value' % name)


def check(uri):
    """Raise LibvirtUriNotAllowed (400) unless ``uri`` is a libvirt URI
    of a form the operator allows; the message names the allowed forms
    and the options, never what the URI would read or run."""
    if not isinstance(uri, str) or not _PRINTABLE.match(uri):
        _refuse('the URI is empty or holds spaces, control or non-ASCII '
                'characters')
    try:
        split = parse.urlsplit(uri)
    except ValueError:
        _refuse('the URI cannot be parsed')
    scheme = split.scheme.lower()
    if not _SCHEME.match(scheme) or not uri[len(scheme):].startswith('://'):
        _refuse('a libvirt URI reads <driver>[+<transport>]://...')
    if scheme == 'test':
        _check_test(split)
        return
    transport = scheme.partition('+')[2]
    if transport == 'ext':
        _refuse('the ext transport runs a program on the manager host')
    if scheme not in schemes():
        _refuse('scheme %s is not allowed' % scheme)
    if transport in REMOTE_TRANSPORTS:
        if not _NETLOC.match(split.netloc):
            _refuse('a %s URI names its host: [user@]host[:port]' % scheme)
    elif transport in LOCAL_TRANSPORTS:
        if split.netloc:
            _refuse('a %s URI has no host' % scheme)
    else:
        _refuse('transport %s is not known' % transport)
    if split.path not in PATHS:
        _refuse('the path is /system or /session')
    if split.fragment or '#' in uri:
        _refuse('a libvirt URI has no fragment')
    if split.query or '?' in uri:
        _check_query(split.query)


def host_name(uri):
    """The host part of ``uri`` (None if it has none or is unreadable):
    what pairs a libvirt host with the nova host of the same machine."""
    try:
        return parse.urlsplit(uri or '').hostname
    except ValueError:
        return None


def display(uri):
    """``uri`` as errors and logs show it: scheme, host and path, without
    user, port or query."""
    try:
        split = parse.urlsplit(uri)
        host = split.hostname or ''
        if ':' in host:
            host = '[%s]' % host
        return '%s://%s%s' % (split.scheme, host, split.path)
    except ValueError:
        return '(unreadable URI)'

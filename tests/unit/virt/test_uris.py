"""The libvirt URIs reserve connects to (reserve.virt.uris.check)."""
import pytest

from reserve.common import exception
from reserve.virt import uris


def _refused(uri):
    with pytest.raises(exception.LibvirtUriNotAllowed) as caught:
        uris.check(uri)
    assert caught.value.code == 400
    return caught.value.message


@pytest.mark.parametrize('uri', [
    'qemu+tls://gpu-01.example.org/system',
    'qemu+ssh://root@gpu-01/system',
    'qemu+ssh://gpu-01:2222/system?no_tty=1',
    'qemu+ssh://gpu-01/session?sshauth=privkey,agent&mode=direct',
    'qemu+tls://10.0.0.7/system?tls_priority=NORMAL:-VERS-TLS1.0',
    'qemu+tls://[fd00::7]/system',
    'QEMU+TLS://gpu-01/system',
])
def test_the_default_forms_are_taken(uri):
    assert uris.check(uri) is None


@pytest.mark.parametrize('uri,why', [
    # Runs a program on the manager host, whatever the list says.
    ('qemu+ext:///system?command=/tmp/x', 'the ext transport runs a '
                                          'program on the manager host'),
    ('qemu+ssh://h/system?command=x', 'query parameter command is not '
                                      'allowed'),
    ('qemu+unix:///system?socket=/tmp/s', 'scheme qemu+unix is not '
                                          'allowed'),
    ('qemu+tcp://h/system', 'scheme qemu+tcp is not allowed'),
    ('qemu:///system', 'scheme qemu is not allowed'),
    ('lxc:///', 'scheme lxc is not allowed'),
    # libvirt splits on ; too, and unescapes names, case-blind.
    ('qemu+ssh://h/system?no_tty=1;command=x', 'query parameter command'),
    ('qemu+ssh://h/system?no_tty=1&COMMAND=x', 'query parameter command'),
    ('qemu+ssh://h/system?comm%61nd=x', 'query parameter command'),
    ('qemu+ssh://h/system?netcat=/bin/sh', 'query parameter netcat'),
    ('qemu+ssh://h/system?proxy=native', 'query parameter proxy'),
    ('qemu+ssh://h/system?keyfile=/etc/shadow', 'query parameter keyfile'),
    ('qemu+tls://h/system?pkipath=/root', 'query parameter pkipath'),
    ('qemu+tls://h/system?no_verify=1', 'query parameter no_verify'),
    ('qemu+ssh://h/system?name=qemu:///embed', 'query parameter name'),
    ('qemu+ssh://h/system?no_tty', 'query parameter no_tty has no plain '
                                   'value'),
    # Hosts that are ssh options, passwords, no host at all.
    ('qemu+ssh://-oProxyCommand=x/system', 'names its host'),
    ('qemu+ssh://u:secret@h/system', 'names its host'),
    ('qemu+ssh:///system', 'names its host'),
    ('qemu+ssh://h%2f/system', 'names its host'),
    ('qemu+ssh://h/embed', 'the path is /system or /session'),
    ('qemu+ssh://h/system#x', 'no fragment'),
    ('qemu+ssh://h/system x', 'spaces'),
    ('', 'empty'),
    ('/etc/passwd', 'a libvirt URI reads'),
])
def test_other_forms_are_refused(uri, why):
    message = _refused(uri)
    assert why in message
    # The message says what is allowed and where that is set ...
    assert ('Allowed: qemu+tls://[user@]host[:port]/system, '
            'qemu+ssh://[user@]host[:port]/system (or /session), with no '
            'query parameter but no_tty, mode, sshauth, tls_priority; set '
            'by [devices]libvirt_uri_schemes (test:/// only with '
            '[devices]fake_test_driver).') in message
    # ... and never repeats what the URI would run or read.
    for value in ('/tmp/x', '/bin/sh', '/etc/shadow', 'secret', '/root'):
        assert value not in message


def test_the_operator_chooses_the_schemes(override):
    override('libvirt_uri_schemes', ['qemu+tcp', 'qemu', 'qemu+unix',
                                     'qemu+ext', 'test'], 'devices')
    uris.check('qemu+tcp://gpu-01:16509/system')
    uris.check('qemu:///system')
    uris.check('qemu+unix:///system')
    message = _refused('qemu+tls://gpu-01/system')
    assert 'scheme qemu+tls is not allowed' in message
    assert ('Allowed: qemu+tcp://[user@]host[:port]/system, '
            'qemu:///system, qemu+unix:///system (or /session)') in message
    # Never a program, a redirected socket or another driver inside.
    assert 'ext transport' in _refused('qemu+ext:///system?command=/tmp/x')
    assert 'query parameter socket' in _refused(
        'qemu+unix:///system?socket=/tmp/s')
    assert 'the path is /system' in _refused('qemu:///embed?root=/tmp/r')
    assert 'has no host' in _refused('qemu://gpu-01/system')
    # Listing test does not take test:///: the fake test driver does.
    assert 'fake_test_driver is off' in _refused('test:///default')


def test_test_uris_only_with_the_fake_test_driver(override):
    message = _refused('test:///etc/passwd')
    assert 'fake_test_driver is off' in message
    assert _refused('test:///default')
    override('fake_test_driver', True, 'devices')
    uris.check('test:///default')
    uris.check('test:///srv/reserve/gpu-hosts/a100-host.xml')
    # Still a host definition, never any file.
    message = _refused('test:///etc/passwd')
    assert 'an absolute path ending in .xml' in message
    assert 'test:///default and test:///<path>.xml' in message
    assert 'root' not in message
    for uri in ('test:///../etc/x.xml', 'test://h/x.xml',
                'test:///x.xml?a=b', 'test:///a/../../etc/x.xml'):
        _refused(uri)


def test_display_leaves_out_user_port_and_query():
    assert uris.display('qemu+ssh://root@gpu-01:22/system?no_tty=1') == (
        'qemu+ssh://gpu-01/system')
    assert uris.display('qemu+tls://[fd00::7]:16514/system') == (
        'qemu+tls://[fd00::7]/system')
    assert uris.display('test:///srv/h.xml') == 'test:///srv/h.xml'

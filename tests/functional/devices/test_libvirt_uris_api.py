"""Enrolling libvirt hosts with URIs that would run, redirect or read
something: 400 before anything is opened, in the API and again in the
manager, and libvirt's error text never in an answer."""
from oslo_config import cfg
import pytest

from reserve.common import exception
from reserve.db import api as db_api
from reserve.db import models
from tests.functional.api_fixtures import ADMIN
from tests.functional.api_fixtures import admin_context
from tests.functional.api_fixtures import assert_error
from tests.fixtures.programs import script  # noqa: F401

CONF = cfg.CONF


def _hosts():
    with db_api.get_engine().connect() as conn:
        return conn.execute(models.Host.__table__.select()).all()


def _enroll(gpu_api, uri):
    return gpu_api.app.post_json('/v1/hosts', {'name': 'x', 'uri': uri},
                                 headers=ADMIN, expect_errors=True)


@pytest.mark.parametrize('form', [
    'qemu+ext:///system?command={}',
    'qemu+ssh://gpu-01/system?command={}',
    'qemu+ssh://gpu-01/system?no_tty=1;netcat={}',
    'qemu+unix:///system?socket={}',
])
def test_a_uri_that_runs_something_is_refused(gpu_api, script, form):
    path, marker = script
    uri = form.format(path)
    response = _enroll(gpu_api, uri)
    detail = assert_error(response, 400, 'reserve.libvirt_uri_not_allowed',
                          'This libvirt URI is not allowed: ')['detail']
    assert '[devices]libvirt_uri_schemes' in detail
    assert str(path) not in detail
    # The manager refuses it too, were the API bypassed.
    with pytest.raises(exception.LibvirtUriNotAllowed):
        gpu_api.manager.create_host(admin_context(), {'name': 'x',
                                                      'uri': uri})
    assert not marker.exists()
    assert _hosts() == []


def test_a_file_is_neither_read_nor_echoed(gpu_api, tmp_path):
    response = _enroll(gpu_api, 'test:///etc/passwd')
    assert_error(response, 400, 'reserve.libvirt_uri_not_allowed',
                 'an absolute path ending in .xml')
    assert 'root:' not in response.text
    # An .xml file that is no host definition: libvirt reads it, the
    # answer does not show it.
    secret = tmp_path / 'notes.xml'
    secret.write_text('db_password = hunter2\n')
    response = _enroll(gpu_api, 'test://%s' % secret)
    assert_error(response, 400, 'reserve.libvirt_unreachable',
                 'Cannot enroll test://%s: could not connect to the libvirt '
                 'host at test://%s: its answer or definition could not be '
                 'parsed' % (secret, secret))
    assert 'hunter2' not in response.text
    assert _hosts() == []


def test_test_uris_need_the_fake_test_driver(gpu_api):
    # The fixture turns the fake test driver on; off, test:/// is refused
    # (the fixture clears the override when the test is over).
    CONF.set_override('fake_test_driver', False, group='devices')
    response = _enroll(gpu_api, 'test:///default')
    assert_error(response, 400, 'reserve.libvirt_uri_not_allowed',
                 'fake_test_driver is off')

"""Errors leave the manager as reserve.common.exception classes."""
import pytest

from reserve.common import exception
from reserve.devices import portable
from reserve.virt import exception as virt_exception


def test_virt_errors_become_their_common_base_with_the_message():
    exc = virt_exception.DeviceInUse(device='PCI device 0000:17:00.0',
                                     uri='test:///x', reason='held')
    found = portable.portable(exc)
    assert type(found) is exception.Conflict
    assert found.message == exc.message
    assert type(portable.portable(virt_exception.VirtError(
        uri='u', reason='r'))) is exception.CloudError


def test_common_errors_pass_unchanged_unless_prefixed():
    exc = exception.DevicesUnavailable(reason='x')
    assert portable.portable(exc) is exc
    prefixed = portable.portable(exc, 'while doing y')
    assert type(prefixed) is exception.DevicesUnavailable
    assert prefixed.message.startswith('while doing y: ')


def test_the_decorator():
    @portable.portable_errors
    def fails():
        raise virt_exception.DomainNotFound(name='vm', uri='u')

    with pytest.raises(exception.NotFound) as caught:
        fails()
    assert type(caught.value) is exception.NotFound

"""Errors of the libvirt layer, each an API-mappable reserve error."""
from reserve.common import exception


class VirtError(exception.CloudError):
    """A libvirt call failed (``libvirt_code`` is libvirt's error code)."""
    msg_fmt = 'libvirt at %(uri)s: %(reason)s'
    safe_fmt = ('a libvirt call on a GPU host failed (the operators have '
                'the details)')

    @property
    def libvirt_code(self):
        return self.kwargs.get('libvirt_code')

    @property
    def detail(self):
        """libvirt's own message, for logs: never shown to callers."""
        return self.kwargs.get('detail', self.message)


class HostUnreachable(VirtError):
    """The connection to a host could not be opened (in time)."""
    msg_fmt = 'could not connect to the libvirt host at %(uri)s: %(reason)s'


class DomainNotFound(exception.NotFound):
    msg_fmt = 'Domain %(name)s does not exist on %(uri)s.'


class PciDeviceNotFound(exception.NotFound):
    msg_fmt = 'PCI device %(address)s does not exist on %(uri)s.'


class MdevNotFound(exception.NotFound):
    msg_fmt = 'Mediated device %(uuid)s does not exist on %(uri)s.'


class InvalidDevice(exception.Invalid):
    msg_fmt = ('%(device)r names no device: give a PCI address '
               '(0000:3b:00.0), a node device name (pci_0000_3b_00_0) '
               'or a mediated device UUID.')


class DeviceInUse(exception.Conflict):
    msg_fmt = '%(device)s is in use on %(uri)s: %(reason)s.'


class MdevTypeNotSupported(exception.Invalid):
    msg_fmt = ('%(parent)s offers no mediated device type %(type)s '
               '(it offers: %(offered)s).')


class MdevTypeExhausted(exception.Conflict):
    msg_fmt = ('No available instances of mediated device type %(type)s '
               'on %(parent)s.')


class MdevExists(exception.Conflict):
    msg_fmt = ('Mediated device %(uuid)s already exists on %(parent)s '
               'with type %(type)s.')

"""libvirtError as a real host raises it, for reserve_fakes.libvirt_host.

Each error carries the code, error domain and message (libvirt's wording
for the code, then the detail) that libvirt gives.
"""
import libvirt

# libvirt's wording for each error code (virerror.c).
_WORDING = {
    libvirt.VIR_ERR_INTERNAL_ERROR: 'internal error: %s',
    libvirt.VIR_ERR_NO_NODE_DEVICE: 'Node device not found: %s',
    libvirt.VIR_ERR_XML_ERROR: 'XML error: %s',
    libvirt.VIR_ERR_OPERATION_INVALID: 'Requested operation is not valid: %s',
    libvirt.VIR_ERR_INVALID_ARG: 'invalid argument: %s',
    libvirt.VIR_ERR_DEVICE_MISSING: 'device not found: %s',
    libvirt.VIR_ERR_CONFIG_UNSUPPORTED: 'unsupported configuration: %s',
}


def libvirt_error(code, domain, detail):
    """A libvirtError as libvirt raises it for ``code`` in ``domain``."""
    message = _WORDING[code] % detail
    error = libvirt.libvirtError.__new__(libvirt.libvirtError)
    Exception.__init__(error, message)
    error.err = (code, domain, message, libvirt.VIR_ERR_ERROR, detail, None,
                 None, 0, 0)
    return error


def mdevctl_error(detail):
    """The node device driver's error when mdevctl will not start an
    mdev."""
    return libvirt_error(libvirt.VIR_ERR_INTERNAL_ERROR,
                         libvirt.VIR_FROM_NODEDEV,
                         'Unable to start mediated device: Error: %s' % detail)


def no_node_device(name):
    return libvirt_error(libvirt.VIR_ERR_NO_NODE_DEVICE,
                         libvirt.VIR_FROM_NODEDEV,
                         "no node device with matching name '%s'" % name)

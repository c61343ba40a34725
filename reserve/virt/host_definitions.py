"""The GPU host definitions of etc/reserve/gpu-hosts and their test:///
URIs: the embedded hosts of reserve-all-in-one ([devices]
embedded_gpu_hosts) and the hosts of the tests."""
import os
import sys
import sysconfig


def host_uri(path):
    """``test:///<absolute path>`` for a host definition file."""
    return 'test://' + os.path.abspath(path)


def _definition_dirs():
    here = os.path.dirname(os.path.abspath(__file__))
    # A source checkout or an editable install.
    yield os.path.join(here, os.pardir, os.pardir, 'etc', 'reserve',
                       'gpu-hosts')
    # Installed with the package's data files.
    for prefix in (sys.prefix, sysconfig.get_path('data'),
                   sys.base_prefix, '/usr/local', '/usr', '/'):
        yield os.path.join(prefix, 'etc', 'reserve', 'gpu-hosts')


def host_definition(name):
    """The path of a GPU host definition of etc/reserve/gpu-hosts
    ('a100-host.xml', 't4-host.xml', 'rtx-workstation.xml')."""
    for directory in _definition_dirs():
        path = os.path.join(directory, name)
        if os.path.isfile(path):
            return os.path.normpath(path)
    raise FileNotFoundError('GPU host definition %s not found; looked in: '
                            '%s' % (name, ', '.join(
                                os.path.normpath(d)
                                for d in _definition_dirs())))

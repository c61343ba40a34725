"""reserve: book GPU capacity ahead of time on OpenStack and libvirt."""
import warnings

from oslo_service import backend as _backend
from oslo_service.backend import exceptions as _backend_exc

# reserve runs on native threads. oslo.service would pick eventlet (which
# it pulls in as a dependency) unless told otherwise, and libraries that
# merely probe for eventlet make it print its deprecation notice.
try:
    _backend.init_backend(_backend.BackendType.THREADING)
except _backend_exc.BackendAlreadySelected:
    pass  # a host program chose first (tests importing oslo first)
warnings.filterwarnings('ignore', message=r'\s*Eventlet is deprecated')

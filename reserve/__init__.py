"""reserve: book GPU capacity ahead of time on OpenStack and libvirt."""
import warnings

# Libraries that merely probe for eventlet (installed as a dependency of
# oslo.service) make it print a deprecation notice; reserve does not use
# it. Set before those libraries are imported.
warnings.filterwarnings('ignore', message=r'\s*Eventlet is deprecated')

from oslo_service import backend as _backend  # noqa: E402
from oslo_service.backend import exceptions as _backend_exc  # noqa: E402

# reserve runs on native threads; oslo.service would pick eventlet.
try:
    _backend.init_backend(_backend.BackendType.THREADING)
except _backend_exc.BackendAlreadySelected:
    pass  # a host program chose first (tests importing oslo first)

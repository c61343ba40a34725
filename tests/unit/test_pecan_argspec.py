"""pecan's argument specs, read once per function
(reserve.api.pecan_argspec): the same answer as pecan's own reader, and
no controller object kept alive by the cache."""
import gc
import weakref

from pecan import compat as pecan_compat

from reserve.api import pecan_argspec


class _Controller:
    def get_one(self, item_id, *remainder, ctx=None, **kwargs):
        return item_id


def _plain(a, b=2):
    return a + b


def test_the_spec_is_the_one_pecan_reads():
    for func in (_plain, _Controller().get_one, _Controller.get_one):
        assert tuple(pecan_argspec.getargspec(func)) == tuple(
            pecan_compat.getargspec(func))
        assert pecan_argspec.getargspec(func)._fields == (
            'args', 'varargs', 'keywords', 'defaults')


def test_a_function_is_read_once_and_its_controllers_are_not_kept():
    first = pecan_argspec.getargspec(_Controller().get_one)
    controller = _Controller()
    alive = weakref.ref(controller)
    assert pecan_argspec.getargspec(controller.get_one) is first
    del controller
    gc.collect()
    assert alive() is None

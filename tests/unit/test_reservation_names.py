"""The names reserve gives a lease reservation's cloud objects, and the
way back from a resource class to the id (what the sweep of leftovers
reads)."""
import uuid

from reserve.common import placement
from reserve.plugins import instance_objects


def test_a_resource_class_names_its_reservation():
    rsv_id = str(uuid.uuid4())
    resource_class = placement.reservation_resource_class(rsv_id)
    assert resource_class == 'CUSTOM_RESERVATION_' + rsv_id.upper().replace(
        '-', '_')
    assert placement.reservation_of_class(resource_class) == rsv_id


def test_other_classes_name_no_reservation():
    assert placement.reservation_of_class('VGPU') is None
    assert placement.reservation_of_class('CUSTOM_PCI_10DE_20B0') is None


def test_the_flavor_is_named_after_the_reservation():
    assert instance_objects.flavor_name('abc') == 'reservation:abc'

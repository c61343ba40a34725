"""/v1/devices (read only: no bodies): its part of the OpenAPI document."""
from reserve.api.schemas import parts
from reserve.api.views import statuses


def response_schemas():
    return {
        'Device': parts.obj({
            'id': parts.STR, 'host_id': parts.STR,
            'host': parts.STR_OR_NULL, 'pci_address': parts.STR,
            'address': parts.obj({'domain': parts.STR, 'bus': parts.STR,
                                  'slot': parts.STR,
                                  'function': parts.STR}),
            'node_device': parts.STR, 'model': parts.STR,
            'vendor_id': parts.STR_OR_NULL,
            'vendor_name': parts.STR_OR_NULL,
            'product_id': parts.STR_OR_NULL,
            'product_name': parts.STR_OR_NULL,
            'pci_class': parts.STR_OR_NULL,
            'numa_node': parts.INT_OR_NULL,
            'iommu_group': parts.INT_OR_NULL,
            'iommu_group_members': parts.STR_LIST,
            'sriov': parts.obj({
                'physical_function': parts.STR_OR_NULL,
                'virtual_functions': parts.STR_LIST,
                'max_virtual_functions': parts.INT_OR_NULL}),
            'mdev_types': parts.array_of(parts.ANY),
            'mdevs': parts.array_of(parts.ANY),
            'in_use_by': parts.array_of(parts.ANY),
            'driver': parts.STR_OR_NULL,
            'state': parts.enum(statuses.DEVICE.shown),
            'reservation_id': dict(parts.STR_OR_NULL, description=(
                'Before 1.2: the device reservation holding it now')),
            'device_reservation_id': dict(parts.STR_OR_NULL, description=(
                'Since 1.1: the device reservation holding it now')),
            'created_at': parts.DATE, 'updated_at': parts.DATE,
        }, optional=('reservation_id', 'device_reservation_id'),
            description='A GPU device (a PCI function) of a libvirt host.'),
        'DeviceAvailability': parts.obj({
            'start': parts.DATE_OR_NULL, 'end': parts.DATE_OR_NULL,
            'availability': parts.array_of(parts.obj({
                'host_id': parts.STR, 'host': parts.STR,
                'model': parts.STR, 'vendor_id': parts.STR_OR_NULL,
                'product_id': parts.STR_OR_NULL, 'free': parts.INT,
                'device_ids': dict(parts.STR_LIST,
                                   description='Since 1.2 (unit_ids before)'),
                'unit_ids': dict(parts.STR_LIST,
                                 description='Before 1.2: device_ids'),
                'numa_node': parts.INT_OR_NULL},
                optional=('numa_node', 'device_ids', 'unit_ids'))),
        }),
    }


def paths():
    device = parts.path_param('device_id', 'GPU device ID')
    return {
        '/v1/devices': {
            'get': parts.operation(
                'listDevices', 'devices',
                'List the GPU devices of the libvirt hosts',
                parts.collection('devices', 'Device'),
                [parts.param('host', description='Host ID or name'),
                 parts.param('model'),
                 parts.param('state',
                             schema=parts.enum(statuses.DEVICE.shown)),
                 parts.param('numa_node',
                             schema={'type': 'integer', 'minimum': 0}),
                 parts.param('include_vfs', schema=parts.BOOL,
                             description='List SR-IOV virtual functions as '
                                         'devices too (default: only under '
                                         'their physical function)'),
                 parts.param('spot', schema=parts.BOOL,
                             description='Since 1.4: only the devices on '
                                         'the spot market (state spot, or '
                                         'in-use by a spot domain)'),
                 parts.LIMIT, parts.MARKER]),
        },
        '/v1/devices/availability': {
            'get': parts.operation(
                'deviceAvailability', 'devices',
                'GPU devices free now or over a window, per host and model',
                parts.ref('DeviceAvailability'),
                [parts.param('host'), parts.param('model'),
                 parts.param('mdev_type'),
                 parts.param('numa_local', schema=parts.BOOL), parts.START,
                 parts.END]),
        },
        '/v1/devices/{device_id}': {
            'get': parts.operation(
                'showDevice', 'devices', 'Show a GPU device',
                parts.one('device', 'Device'), [device],
                errors_=(400, 403, 404)),
        },
    }

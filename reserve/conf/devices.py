from oslo_config import cfg

devices_group = cfg.OptGroup(
    'devices', title='GPU devices on libvirt hosts',
    help='Libvirt hosts enrolled with a URI, their GPUs (/v1/devices) and '
         'the reservations of GPU devices (/v1/device-reservations).')

devices_opts = [
    cfg.IntOpt('refresh_interval', default=300, min=0,
               help='Seconds between two rediscoveries of every libvirt '
                    'host by the manager: devices are updated, a changed '
                    'topology generation puts the host\'s reservations in '
                    'needs-review, and attachments that went missing are '
                    'made again. 0 disables the periodic refresh (POST '
                    '/v1/hosts/{id}/refresh still works).'),
    cfg.StrOpt('end_action', default='detach',
               choices=[('detach', 'Detach the devices; the domain keeps '
                                   'running'),
                        ('destroy', 'Power the domain off (virsh destroy), '
                                    'then detach the devices from its '
                                    'definition')],
               help='What happens to the domains holding a device '
                    'reservation\'s devices when it ends or is cancelled.'),
    cfg.StrOpt('spot_reclaim_action', default='detach',
               choices=[('detach', 'Detach the devices; the spot domain '
                                   'keeps running without them'),
                        ('destroy', 'Power the spot domain off (virsh '
                                    'destroy), then detach the devices '
                                    'from its definition')],
               help='What a reclaim (POST /v1/device-reservations/{id}/'
                    'reclaim, or the end of the reservation that lent '
                    'them) does to the spot domains holding the devices '
                    'it takes back.'),
    cfg.ListOpt('libvirt_uri_schemes', default=['qemu+tls', 'qemu+ssh'],
                help='The libvirt URI schemes a host may be enrolled with '
                     '(POST /v1/hosts) and the manager connects to: '
                     '<driver>+<transport> such as qemu+tls, qemu+ssh, '
                     'qemu+libssh2 or qemu+tcp (unencrypted), or a local '
                     'driver such as qemu. A URI must also have the form '
                     '<scheme>://[user@]host[:port]/system (or /session; '
                     'no host for a local driver), and may carry no query '
                     'parameter but no_tty, mode, sshauth and '
                     'tls_priority: command=, socket=, netcat=, proxy=, '
                     'keyfile=, name= and the like, which run a program or '
                     'redirect the connection, are refused whatever this '
                     'lists, as is the ext transport. test:/// URIs are '
                     'taken only with fake_test_driver, whatever this '
                     'lists. Hosts already enrolled with a URI no longer '
                     'allowed fail their refresh with the reason.'),
    cfg.IntOpt('libvirt_connect_timeout', default=30, min=1,
               help='Seconds the manager waits for a libvirt host to '
                    'answer when it opens its connection; after that the '
                    'request is answered "could not connect". While that '
                    'attempt still hangs, the host\'s next requests fail '
                    'at once; it is tried afresh once the attempt ends. '
                    'Other hosts are not held up meanwhile.'),
    cfg.BoolOpt('fake_test_driver', default=False,
                help='Complete hosts enrolled with a test:/// URI '
                     '(libvirt\'s test driver) with mdev creation and '
                     'hot-plug, as reserve_fakes.libvirt_host does, and '
                     'accept test:///default and test:///<path>.xml URIs '
                     '(refused otherwise). For tests and the quick start '
                     'only.'),
    cfg.StrOpt('fake_test_driver_socket',
               help='With fake_test_driver: reach test:/// hosts through '
                    'the shared test-host server listening on this UNIX '
                    'socket (python -m reserve_fakes.shared_host), so that '
                    'several managers see one state of each host, as they '
                    'would a real one. Unset, each manager holds its own. '
                    'For tests only.'),
    cfg.IntOpt('min_duration_seconds', default=600, min=1,
               help='Shortest device reservation, in seconds, from its '
                    'start (or now, when it has started) to its end: a '
                    'shorter one is refused (400). Each reservation costs '
                    'a lease, three events and a libvirt attach and '
                    'detach; ten minutes keeps a project from churning '
                    'the host with reservations of a few seconds.'),
    cfg.IntOpt('lease_lead_seconds', default=86400, min=600,
               help='How long before its start a device reservation gets '
                    'its lease (its start and end events), in seconds. '
                    'Its devices are held from the moment it is accepted '
                    '(201); one that starts later than this is left to '
                    'the worker\'s reconciler, which has the lease made '
                    'once the start comes within this lead (at most '
                    '[worker] reconcile_interval later). Keep it well '
                    'above reconcile_interval.'),
    cfg.DictOpt('embedded_gpu_hosts', default={},
                sample_default='gpu-a100-01:a100-host.xml,'
                               'gpu-t4-01:t4-host.xml',
                help='reserve-all-in-one only: host name to GPU host '
                     'definition of etc/reserve/gpu-hosts, each enrolled '
                     '(or refreshed, when it already is) at start-up as a '
                     'libvirt test:/// host. The all-in-one enrolls '
                     'gpu-a100-01 and gpu-t4-01 unless told otherwise.'),
]


def register_opts(conf):
    conf.register_group(devices_group)
    conf.register_opts(devices_opts, group=devices_group)


def list_opts():
    return {devices_group: devices_opts}

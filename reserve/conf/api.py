from oslo_config import cfg

api_group = cfg.OptGroup('api', title='REST API options')

api_opts = [
    cfg.StrOpt('auth_strategy',
               default='keystone',
               choices=[('keystone',
                         'Validate tokens with keystonemiddleware'),
                        ('noauth', 'Trust X-User-Id, X-Project-Id and '
                                   'X-Roles headers (development only)')],
               help='How API requests are authenticated.'),
    cfg.HostAddressOpt('host_ip', default='127.0.0.1',
                       help='Address the development server listens on.'),
    cfg.PortOpt('port', default=8785,
                help='Port the development server listens on.'),
    cfg.IntOpt('server_threads', default=16, min=1,
               help='Threads of the built-in server (reserve-api and the '
                    'all-in-one) that answer requests.'),
    cfg.IntOpt('listen_backlog', default=128, min=5,
               help='Connections the built-in server lets wait before it '
                    'accepts them (the socket listen backlog).'),
    cfg.BoolOpt('noauth_allow_remote', default=False,
                help='With auth_strategy noauth every caller may act as an '
                     'administrator, so the API refuses to listen on an '
                     'address other than loopback, and answers 403 to '
                     'callers that are not on loopback, unless this is '
                     'true.'),
    cfg.IntOpt('max_limit', default=1000, min=1,
               help='Largest number of items a list call returns.'),
    cfg.IntOpt('rpc_timeout', default=30, min=1,
               help='Seconds the API waits for the manager to answer a '
                    'call (host enrollment) before answering 503.'),
    cfg.IntOpt('max_body_bytes', default=1024 * 1024, min=1024,
               help='Largest request body taken, in bytes: a larger one, '
                    'chunked or not, is answered 413 after reading at most '
                    'one byte more, before authentication.'),
    cfg.IntOpt('max_header_bytes', default=64 * 1024, min=4096,
               help='Largest request line and headers the built-in server '
                    '(reserve-api, the all-in-one) reads, in bytes (413 '
                    'above). Under gunicorn, its limit_request_line, '
                    'limit_request_fields and limit_request_field_size '
                    'settings bound them (etc/reserve/gunicorn.conf.py).'),
    cfg.IntOpt('max_years_ahead', default=100, min=1,
               help='Dates more than this many years from now (and before '
                    '1970) are refused with 400: a window that far is a '
                    'mistake, and an open-ended one omits its end.'),
    cfg.IntOpt('past_tolerance', default=300, min=0,
               help='Seconds a booking may start in the past (clock skew, '
                    'slow clients) before it is refused.'),
    cfg.IntOpt('kept_answers', default=64, min=0,
               help='Answers to the lists dashboards poll (GET '
                    '/v1/reservations, /v1/device-reservations, '
                    '/v1/flavors/availability, and the flavor exporter\'s '
                    '/gpus/flavors/ and /v2/flavors/) each API process '
                    'keeps, on '
                    'a SQLite database file only: one is given again '
                    'until the database changes (any commit, of any '
                    'process) or the second turns. 0 keeps none.'),
]


def register_opts(conf):
    conf.register_group(api_group)
    conf.register_opts(api_opts, group=api_group)


def list_opts():
    return {api_group: api_opts}

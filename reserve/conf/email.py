"""E-mails to the booking's user, and how reserve reaches keystone.

``[email]``: which events mail the user, through which driver (``log`` by
default, ``smtp`` for real mail) and how the SMTP relay is reached.

``[keystone]``: the identity service, asked for the address of the user
who made a booking (``GET /v3/users/{user_id}`` -> ``email``). The
credentials need a role that passes keystone's ``identity:get_user``
policy for the users of the cloud (a system or domain reader, or admin).
"""
from keystoneauth1 import loading as ks_loading
from oslo_config import cfg

from reserve.conf import clients

EVENTS = (
    ('allocated', 'The booking is accepted: its window and the flavor to '
                  'boot with.'),
    ('start', '"Your reservation is ready": how to boot on it.'),
    ('before_end', 'The warning that the instances will be DELETED at the '
                   'end, [manager]minutes_before_end_lease before it (not '
                   'sent when that is 0: a warning at the end is no use).'),
    ('end', 'The reservation is over.'),
    ('cancelled', 'The operator took the hosts away (maintenance, '
                  'draining) and no other host had room: the reservation '
                  'is cancelled, with the reason.'),
    ('healed', 'A host of the reservation failed and what it held was '
               'moved to other hosts.'),
    ('degraded', 'A host of the reservation failed and no other host had '
                 'room for all it held: the reservation lacks capacity '
                 'until the host is back.'),
    ('restored', 'The failed host is back: the reservation is whole '
                 'again.'),
    ('promoted', 'A reservation on standby was admitted: room was freed '
                 'for its window.'),
    ('lapsed', 'A reservation on standby lapsed: no room was freed '
               'before its start or its deadline.'),
    ('spot_warning', 'A spot server of the user will be reclaimed soon: a '
                     'booking of its host needs the GPUs it borrows.'),
    ('spot_reclaimed', 'A spot server of the user was deleted or shelved: '
                       'the GPUs it borrowed were needed.'),
)

email_group = cfg.OptGroup(
    'email', title='User e-mails',
    help='Mails sent to the user who made a booking when it is allocated, '
         'when it starts, before it ends and when it has ended.')

email_opts = [
    cfg.StrOpt('driver', default='log',
               help='How mails leave: "log" writes each rendered mail to '
                    'the notification daemon\'s log and sends nothing; '
                    '"smtp" hands it to the SMTP relay of the smtp_* '
                    'options. Any driver registered in the '
                    'reserve.notification.email_drivers entry point '
                    'namespace can be named.'),
    cfg.ListOpt('enabled_events',
                default=[name for name, _ in EVENTS],
                item_type=cfg.types.String(choices=EVENTS),
                help='Booking events that mail the user: allocated (the '
                     'booking is accepted: window and boot flavor), start '
                     '("your reservation is ready"), before_end (the '
                     'instances will be DELETED at the end; sent '
                     '[manager]minutes_before_end_lease before it, not at '
                     'all when that is 0), end (it is over), cancelled (the '
                     'operator took its hosts away and no other host had '
                     'room), healed (a failed host\'s share moved to other '
                     'hosts), degraded (a failed host\'s share could not '
                     'all move), restored (the failed host is back), '
                     'promoted (a reservation on standby was admitted), '
                     'lapsed (a reservation on standby was never '
                     'admitted). '
                     'Empty: no mail '
                     'at all (and no keystone look-up).'),
    cfg.StrOpt('from_address', default='reserve@localhost',
               help='Sender of the mails (the From header and the SMTP '
                    'envelope sender), e.g. "GPU reservations '
                    '<reservations@example.org>".'),
    cfg.StrOpt('reply_to',
               help='Reply-To of the mails, e.g. the helpdesk. None: '
                    'replies go to from_address.'),
    cfg.StrOpt('subject_prefix', default='[reserve]',
               help='Put in front of every subject; empty for none.'),
    cfg.StrOpt('template_dir',
               help='Directory of site templates (allocated.txt, start.txt, '
                    'before_end.txt, end.txt). A template found there '
                    'replaces the packaged one of the same name; the '
                    'others stay packaged.'),
    cfg.StrOpt('address_without_keystone',
               help='For clouds without keystone (development, the '
                    'all-in-one): the address of a user when [keystone] is '
                    'not configured, with %(user_id)s for the user id, '
                    'e.g. "%(user_id)s@localhost". None: such users get '
                    'no mail.'),
    cfg.IntOpt('address_cache_ttl', default=300, min=0,
               help='Seconds an address read from keystone is reused for '
                    'the next mails to the same user. 0: ask keystone for '
                    'every mail.'),
    cfg.HostAddressOpt('smtp_host', default='localhost',
                       help='SMTP relay (driver smtp).'),
    cfg.PortOpt('smtp_port', default=25,
                help='Port of the SMTP relay: 25 or 587 (with '
                     'smtp_starttls), 465 (with smtp_ssl).'),
    cfg.BoolOpt('smtp_starttls', default=False,
                help='Upgrade the connection with STARTTLS before '
                     'anything else is said (port 587).'),
    cfg.BoolOpt('smtp_ssl', default=False,
                help='Speak SMTP over TLS from the first byte (SMTPS, port '
                     '465). Exclusive with smtp_starttls.'),
    cfg.StrOpt('smtp_ca_file',
               help='CA bundle that verifies the relay\'s certificate with '
                    'smtp_starttls or smtp_ssl. None: the system\'s CAs.'),
    cfg.StrOpt('smtp_username',
               help='Log in to the relay as this user (needs smtp_starttls '
                    'or smtp_ssl unless the relay allows it in clear). '
                    'None: no login.'),
    cfg.StrOpt('smtp_password', secret=True,
               help='Password of smtp_username.'),
    cfg.FloatOpt('smtp_timeout', default=30.0, min=1,
                 help='Seconds one SMTP connection may take to connect or '
                      'to answer, after which the mail is given up (and '
                      'logged).'),
]

keystone_group = cfg.OptGroup(
    'keystone', title='Identity service',
    help='How reserve reaches keystone to find the e-mail address of a '
         'booking\'s user. Without auth_type and endpoint_override no '
         'address is looked up and no mail is sent.')

keystone_opts = [
    cfg.MultiStrOpt('additional_headers', default=[],
                    help='Extra HTTP header sent with every request to '
                         'keystone, as "Name: value"; repeat the option for '
                         'several.'),
]


def _session_opts():
    # A mail is not worth waiting for a keystone that does not answer.
    opts = ks_loading.get_session_conf_options()
    cfg.set_defaults(opts, timeout=30.0)
    return opts


def _adapter_opts():
    opts = ks_loading.get_adapter_conf_options(include_deprecated=False)
    cfg.set_defaults(opts, service_type='identity')
    return opts


def register_opts(conf):
    conf.register_group(email_group)
    conf.register_opts(email_opts, group=email_group)
    conf.register_group(keystone_group)
    conf.register_opts(keystone_opts, group=keystone_group)
    conf.register_opts(_session_opts(), group=keystone_group)
    ks_loading.register_auth_conf_options(conf, keystone_group.name)
    conf.register_opts(_adapter_opts(), group=keystone_group)


def _keystone_sample_opts():
    return clients.one_per_name(
        keystone_opts + _session_opts() +
        ks_loading.get_auth_common_conf_options() +
        ks_loading.get_auth_plugin_conf_options('password') +
        _adapter_opts())


def list_opts():
    return {email_group: email_opts,
            keystone_group: _keystone_sample_opts()}

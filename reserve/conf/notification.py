from oslo_config import cfg

notification_group = cfg.OptGroup('notification',
                                  title='Notification daemon options')

notification_opts = [
    cfg.ListOpt('topics', default=['notifications'],
                help='Notification topics the daemon listens on; the '
                     'manager emits lease notifications there.'),
    cfg.IntOpt('workers', default=1, min=1,
               help='Listener processes started by reserve-notification.'),
]


def register_opts(conf):
    conf.register_group(notification_group)
    conf.register_opts(notification_opts, group=notification_group)


def list_opts():
    return {notification_group: notification_opts}

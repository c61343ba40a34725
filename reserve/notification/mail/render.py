"""Mails rendered from plain-text templates.

A template is a file named after the event (``allocated.txt``,
``start.txt``, ``before_end.txt``, ``end.txt``): a ``Subject:`` line, a
blank line, then the body. Both are ``string.Template`` text, so a
placeholder reads ``$name`` or ``${name}`` and a dollar is ``$$``. The
placeholders are the keys of ``template_values``. The packaged templates
live in ``reserve/notification/templates/``; ``[email]template_dir`` may
hold site versions of any of them.
"""
import datetime
import email.message
import email.utils
import importlib.resources
import os
import string

from oslo_config import cfg

from reserve.common import timeutils

CONF = cfg.CONF

# Mails about a booking.
EVENTS = ('allocated', 'start', 'before_end', 'end', 'cancelled', 'healed',
          'degraded', 'restored', 'promoted', 'lapsed')
# Mails about a spot server (reserve.spot).
SPOT_EVENTS = ('spot_warning', 'spot_reclaimed')
PACKAGE = 'reserve.notification'
TEMPLATE_DIR = 'templates'


class TemplateError(Exception):
    """A template is missing, malformed or names an unknown value."""


def human(value):
    """Naive UTC datetime → 'Tuesday 12 August 2026, 14:00 UTC'."""
    return value.strftime('%A %d %B %Y, %H:%M UTC')


def short(value):
    """Naive UTC datetime → '2026-08-12 14:00 UTC' (for subjects)."""
    return value.strftime('%Y-%m-%d %H:%M UTC')


def duration(delta):
    """timedelta → '2 days 3 hours', '45 minutes', 'less than a minute'."""
    minutes = int(delta.total_seconds() // 60)
    if minutes < 1:
        return 'less than a minute'
    days, minutes = divmod(minutes, 24 * 60)
    hours, minutes = divmod(minutes, 60)
    parts = []
    for count, word in ((days, 'day'), (hours, 'hour'),
                        (minutes, 'minute')):
        if count:
            parts.append('%d %s%s' % (count, word, '' if count == 1 else 's'))
    return ' '.join(parts[:2])


def about(delta):
    """timedelta → 'about 1 hour', or 'less than a minute'."""
    words = duration(max(delta, datetime.timedelta(0)))
    return words if words.startswith('less') else 'about %s' % words


def template_values(booking, user_name=None, flavor_name=None, now=None):
    """What a template may name, from a booking row (dates naive UTC)."""
    now = now or timeutils.utcnow()
    return {
        'reservation_id': booking.id,
        'user_id': booking.user_id,
        'user_name': user_name or booking.user_id,
        'project_id': booking.project_id,
        'flavor_id': booking.flavor_id,
        'flavor_name': flavor_name or booking.flavor_id,
        'reserved_flavor_id': booking.reserved_flavor_id or '',
        'instance_count': booking.instance_count,
        'lease_id': booking.lease_id or '',
        'status': booking.status,
        'status_reason': booking.status_reason or '',
        'start_iso': timeutils.isoformat(booking.start),
        'end_iso': timeutils.isoformat(booking.end),
        'start_human': human(booking.start),
        'end_human': human(booking.end),
        'start_short': short(booking.start),
        'end_short': short(booking.end),
        'length': duration(booking.end - booking.start),
        'time_left': about(booking.end - now),
    }


def _read(event):
    name = '%s.txt' % event
    if CONF.email.template_dir:
        path = os.path.join(CONF.email.template_dir, name)
        if os.path.exists(path):
            with open(path, encoding='utf-8') as f:
                return f.read()
    resource = importlib.resources.files(PACKAGE).joinpath(TEMPLATE_DIR,
                                                           name)
    try:
        return resource.read_text(encoding='utf-8')
    except FileNotFoundError:
        raise TemplateError('no template for the %r mail' % event)


def _split(event, text):
    head, sep, body = text.partition('\n\n')
    lines = head.splitlines()
    if not sep or len(lines) != 1 or not lines[0].startswith('Subject:'):
        raise TemplateError('template %s.txt must start with one '
                            '"Subject:" line and a blank line' % event)
    return lines[0][len('Subject:'):].strip(), body


def _substitute(event, text, values):
    try:
        return string.Template(text).substitute(values)
    except KeyError as exc:
        raise TemplateError('template %s.txt names an unknown value %s'
                            % (event, exc))
    except ValueError as exc:
        raise TemplateError('template %s.txt: %s' % (event, exc))


def render(event, values):
    """(subject, body) of the ``event`` mail, the prefix not yet added."""
    subject, body = _split(event, _read(event))
    subject = ' '.join(_substitute(event, subject, values).split())
    return subject, _substitute(event, body, values).rstrip('\n') + '\n'


def _domain(address):
    addr = email.utils.parseaddr(address)[1]
    return addr.rpartition('@')[2] or 'localhost'


def spot_values(payload, user_name=None, now=None):
    """What a spot template may name, from a spot.server.* payload."""
    now = now or timeutils.utcnow()
    reclaim_by = timeutils.parse(payload['reclaim_by']) \
        if payload.get('reclaim_by') else now
    return {
        'server_id': payload['server_id'],
        'user_id': payload.get('user_id') or '',
        'user_name': user_name or payload.get('user_id') or '',
        'project_id': payload.get('project_id') or '',
        'host': payload.get('host') or '',
        'gpus': payload.get('gpus') or 0,
        'action': ('shelved' if payload.get('action') == 'shelve'
                   else 'deleted'),
        'reason': payload.get('reason') or '',
        'reclaim_by_iso': timeutils.isoformat(reclaim_by),
        'reclaim_by_human': human(reclaim_by),
        'time_left': about(reclaim_by - now),
    }


def build_spot_message(event, payload, to_address, user_name=None,
                       now=None):
    """The ``event`` mail about a spot server as an EmailMessage."""
    subject, body = render(event, spot_values(payload, user_name, now))
    return _message(event, subject, body, to_address,
                    'X-Reserve-Server-Id', payload['server_id'])


def build_message(event, booking, to_address, user_name=None,
                  flavor_name=None, now=None):
    """The ``event`` mail about ``booking`` as an EmailMessage."""
    values = template_values(booking, user_name=user_name,
                             flavor_name=flavor_name, now=now)
    subject, body = render(event, values)
    return _message(event, subject, body, to_address,
                    'X-Reserve-Reservation-Id', booking.id)


def _message(event, subject, body, to_address, about_header, about_id):
    if CONF.email.subject_prefix:
        subject = '%s %s' % (CONF.email.subject_prefix, subject)
    msg = email.message.EmailMessage()
    msg['From'] = CONF.email.from_address
    msg['To'] = to_address
    if CONF.email.reply_to:
        msg['Reply-To'] = CONF.email.reply_to
    msg['Subject'] = subject
    msg['Date'] = email.utils.formatdate(usegmt=True)
    msg['Message-ID'] = email.utils.make_msgid(
        idstring='%s.%s' % (event, about_id),
        domain=_domain(CONF.email.from_address))
    # RFC 3834: no vacation replies to a machine.
    msg['Auto-Submitted'] = 'auto-generated'
    msg[about_header] = about_id
    msg['X-Reserve-Event'] = event
    msg.set_content(body)
    return msg

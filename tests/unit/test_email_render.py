"""The user mails as rendered from the packaged templates."""
import datetime
import email
import email.policy
import importlib.resources
import re
import types

import pytest

from reserve.notification.mail import render

NOW = datetime.datetime(2026, 8, 13, 13, 0, 0)
START = datetime.datetime(2026, 8, 12, 14, 0, 0)
END = datetime.datetime(2026, 8, 13, 14, 0, 0)


def booking(**values):
    row = dict(id='3f0c5b1e-0000-4000-8000-00000000abcd',
               user_id='u-alice', project_id='p-physics',
               flavor_id='gpu.a100', instance_count=2, lease_id='lease-1',
               reserved_flavor_id='9f2a6c1d-1111-4222-8333-444455556666',
               status='ACTIVE', status_reason=None, start=START,
               end=END)
    row.update(values)
    return types.SimpleNamespace(**row)


def mail(event, row=None, **kwargs):
    kwargs.setdefault('now', NOW)
    msg = render.build_message(event, row or booking(), 'alice@example.org',
                               user_name='Alice', flavor_name='A100 GPU',
                               **kwargs)
    # What a mail client reads: parse the wire form back.
    return email.message_from_bytes(msg.as_bytes(),
                                    policy=email.policy.default)


def subject(msg):
    # A long subject is folded onto the next line: unfolded, it may keep
    # the folding white space in front.
    return str(msg['Subject']).strip()


def body(msg):
    return msg.get_content()


def test_every_event_has_a_packaged_template():
    files = importlib.resources.files('reserve.notification') / 'templates'
    names = sorted(p.name for p in files.iterdir() if p.name.endswith('.txt'))
    assert names == sorted('%s.txt' % e for e in
                           render.EVENTS + render.SPOT_EVENTS)


@pytest.mark.parametrize('event', render.EVENTS)
def test_headers(event, override):
    override('from_address', 'GPU desk <gpu@cloud.example>', group='email')
    override('reply_to', 'help@cloud.example', group='email')
    msg = mail(event)
    assert msg['To'] == 'alice@example.org'
    assert msg['From'] == 'GPU desk <gpu@cloud.example>'
    assert msg['Reply-To'] == 'help@cloud.example'
    assert subject(msg).startswith('[reserve] ')
    assert msg['Auto-Submitted'] == 'auto-generated'
    assert msg['X-Reserve-Event'] == event
    assert msg['X-Reserve-Reservation-Id'] == booking().id
    assert msg['Message-ID'].endswith('@cloud.example>')
    assert msg['Date']
    assert msg.get_content_type() == 'text/plain'


@pytest.mark.parametrize('event', render.EVENTS)
def test_every_mail_is_complete_and_in_utc(event):
    msg = mail(event)
    text = body(msg)
    # Every placeholder was filled.
    assert '$' not in text and '$' not in msg['Subject']
    assert text.startswith('Hello Alice,')
    assert re.search(r'Reservation:\s+%s' % booking().id, text)
    # Nothing to boot on a cancelled or lapsed one, nor yet on one just
    # admitted from standby.
    if event not in ('cancelled', 'promoted', 'lapsed'):
        assert re.search(
            r'Boot flavor:\s+9f2a6c1d-1111-4222-8333-444455556666', text)
    assert 'p-physics' in text
    # Times are UTC, as ISO 8601 with Z and for humans.
    assert '2026-08-13T14:00:00Z' in text
    assert 'Thursday 13 August 2026, 14:00 UTC' in text
    assert 'All times are UTC.' in text


def test_cancelled_tells_why():
    reason = ('cancelled by the operators: host gpu7 is in maintenance '
              'from 2026-08-12T00:00:00Z to 2026-08-14T00:00:00Z')
    msg = mail('cancelled', booking(status='ERROR', status_reason=reason))
    assert subject(msg).startswith('[reserve] Reservation cancelled: 2 x')
    assert reason in ' '.join(body(msg).split())


def test_allocated_tells_the_window_and_the_flavor_to_boot_with():
    msg = mail('allocated')
    text = body(msg)
    assert subject(msg) == ('[reserve] Reservation confirmed: 2 x A100 GPU '
                            'from 2026-08-12 14:00 UTC to 2026-08-13 14:00 '
                            'UTC')
    assert re.search(r'Starts:\s+2026-08-12T14:00:00Z  '
                     r'\(Wednesday 12 August 2026, 14:00 UTC\)', text)
    assert re.search(r'Ends:\s+2026-08-13T14:00:00Z', text)
    assert 'Length:         1 day' in text
    assert 'DELETED' in text


def test_start_says_ready_and_how_to_boot():
    msg = mail('start')
    text = body(msg)
    assert subject(msg) == ('[reserve] Your reservation is ready: 2 x A100 '
                            'GPU until 2026-08-13 14:00 UTC')
    assert ('openstack server create --flavor '
            '9f2a6c1d-1111-4222-8333-444455556666') in text
    assert 'Up to\n2 instance(s)' in text
    assert 'DELETED' in text


def test_before_end_warns_instances_will_be_deleted_at_the_end():
    msg = mail('before_end')
    text = body(msg)
    assert subject(msg) == ('[reserve] Instances will be DELETED at '
                            '2026-08-13 14:00 UTC: your reservation of 2 x '
                            'A100 GPU ends')
    assert 'ends in about 1 hour' in text
    assert re.search(r'Boot flavor:\s+9f2a6c1d-1111-4222-8333-444455556666',
                     text)
    assert ('At 2026-08-13T14:00:00Z every instance booted with the boot '
            'flavor\nWILL BE DELETED') in text
    assert 'Copy your data off now' in text
    assert ('openstack server list --flavor '
            '9f2a6c1d-1111-4222-8333-444455556666') in text


def test_end_says_it_is_over():
    msg = mail('end', booking(status='COMPLETE'))
    text = body(msg)
    assert subject(msg) == ('[reserve] Your reservation has ended: 2 x '
                            'A100 GPU')
    assert 'is over' in text
    assert 'have been deleted' in text


def test_time_left_follows_the_clock():
    text = body(mail('before_end', now=END - datetime.timedelta(minutes=15)))
    assert 'ends in about 15 minutes.' in text
    text = body(mail('before_end', now=END - datetime.timedelta(seconds=9)))
    assert 'ends in less than a minute.' in text


@pytest.mark.parametrize('delta,words', [
    (datetime.timedelta(seconds=30), 'less than a minute'),
    (datetime.timedelta(minutes=1), '1 minute'),
    (datetime.timedelta(minutes=60), '1 hour'),
    (datetime.timedelta(minutes=125), '2 hours 5 minutes'),
    (datetime.timedelta(days=3, hours=1, minutes=7), '3 days 1 hour'),
    (datetime.timedelta(0), 'less than a minute'),
])
def test_duration(delta, words):
    assert render.duration(delta) == words


@pytest.mark.parametrize('delta,words', [
    (datetime.timedelta(minutes=90), 'about 1 hour 30 minutes'),
    (datetime.timedelta(seconds=20), 'less than a minute'),
    (datetime.timedelta(minutes=-5), 'less than a minute'),
])
def test_about(delta, words):
    assert render.about(delta) == words


def test_subject_prefix_can_go(override):
    override('subject_prefix', '', group='email')
    assert subject(mail('end')).startswith('Your reservation has ended')


def test_no_reply_to_unless_configured():
    assert mail('end')['Reply-To'] is None


def test_a_value_cannot_break_the_subject_line():
    msg = render.build_message('allocated', booking(), 'a@example.org',
                               flavor_name='evil\r\nBcc: x@example.org',
                               now=NOW)
    assert msg['Bcc'] is None
    assert '\n' not in msg['Subject']


def test_site_template_replaces_the_packaged_one(tmp_path, override):
    (tmp_path / 'start.txt').write_text(
        'Subject: Ready: $reservation_id\n\nBoot with $reserved_flavor_id; '
        'costs $$0.\n')
    override('template_dir', str(tmp_path), group='email')
    msg = mail('start')
    assert subject(msg) == '[reserve] Ready: %s' % booking().id
    assert body(msg) == ('Boot with 9f2a6c1d-1111-4222-8333-444455556666; '
                         'costs $0.\n')
    # The others stay packaged.
    assert 'WILL BE DELETED' in body(mail('before_end'))


@pytest.mark.parametrize('text,error', [
    ('no subject here\n\nbody\n', 'must start with one "Subject:" line'),
    ('Subject: x\nbody without a blank line\n', 'must start with one'),
    ('Subject: $nope\n\nbody\n', "unknown value 'nope'"),
    ('Subject: x\n\ncosts $5\n', 'Invalid placeholder'),
])
def test_broken_site_template_is_an_error(tmp_path, override, text, error):
    (tmp_path / 'end.txt').write_text(text)
    override('template_dir', str(tmp_path), group='email')
    with pytest.raises(render.TemplateError, match=re.escape(error)):
        mail('end')


SPOT_PAYLOAD = {'server_id': '7d1e2c3b-5555-4666-8777-888899990000',
                'user_id': 'u-sam', 'project_id': 'p-spot',
                'host': 'gpu-node-7', 'gpus': 2, 'action': 'delete',
                'reclaim_by': '2026-08-13T13:10:00Z',
                'reason': 'a booking of the host needs its GPUs'}


def spot_mail(event, **payload):
    msg = render.build_spot_message(event, dict(SPOT_PAYLOAD, **payload),
                                    'sam@example.org', user_name='Sam',
                                    now=NOW)
    return email.message_from_bytes(msg.as_bytes(),
                                    policy=email.policy.default)


@pytest.mark.parametrize('event', render.SPOT_EVENTS)
def test_spot_mails_name_the_server_its_host_and_why(event):
    msg = spot_mail(event)
    text = body(msg)
    assert '$' not in text and '$' not in msg['Subject']
    assert msg['X-Reserve-Server-Id'] == SPOT_PAYLOAD['server_id']
    assert msg['X-Reserve-Event'] == event
    assert text.startswith('Hello Sam,')
    assert re.search(r'Host:\s+gpu-node-7', text)
    assert re.search(r'GPUs:\s+2', text)
    assert 'a booking of the host needs its GPUs' in text
    assert 'deleted' in subject(msg)


def test_the_spot_warning_says_by_when():
    text = body(spot_mail('spot_warning'))
    assert 'by 2026-08-13T13:10:00Z (about 10 minutes from now)' in \
        ' '.join(text.split())


def test_a_shelved_spot_server_is_said_shelved():
    assert 'was shelved' in subject(spot_mail('spot_reclaimed',
                                              action='shelve'))

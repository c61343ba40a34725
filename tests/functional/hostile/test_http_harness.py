"""The harness itself: every persona reaches the served API as itself."""
from tests.functional.hostile.http import assert_http_error


def test_each_persona_is_answered_as_its_project(http):
    made = http.post('member_a', '/v1/device-reservations?dry_run=true',
                     json={'count': 1})
    # No GPU host is enrolled: a clear refusal, not a server error.
    assert made.status_code < 500, made.text
    for who in ('admin', 'member_a', 'reader_a', 'member_b'):
        listed = http.get(who, '/v1/reservations')
        assert listed.status_code == 200, listed.text
        assert listed.json()['reservations'] == []


def test_errors_come_as_the_one_error_body(http):
    assert_http_error(http.get('member_a', '/v1/reservations/nope'), 404)

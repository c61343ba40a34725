"""The database's figures read one scrape ahead (reserve.metrics.ahead):
a scrape answers with the read the previous one started, waits for it
when it is still under way, and reads itself when it holds nothing or
only figures older than max_age."""
import threading

from reserve.metrics import ahead


class Clock:
    def __init__(self):
        self.now = 1000.0

    def __call__(self):
        return self.now


class Reads:
    """A read whose n-th call returns ['read n']; ``gate``, when set,
    holds each read until the test lets it go."""

    def __init__(self, gate=None):
        self.count = 0
        self.gate = gate
        self.started = threading.Event()

    def __call__(self):
        self.count += 1
        number = self.count
        self.started.set()
        if self.gate is not None:
            assert self.gate.wait(10)
        return ['read %d' % number]


def test_the_first_scrape_reads_at_once():
    reads, clock = Reads(), Clock()
    figures = ahead.ReadAhead(reads, max_age=120, clock=clock)
    assert figures.current() == (['read 1'], 0.0)
    assert reads.count == 1


def test_a_scrape_answers_with_the_read_the_previous_one_started():
    reads, clock = Reads(), Clock()
    figures = ahead.ReadAhead(reads, max_age=120, clock=clock)
    figures.current()
    figures.start_next()
    clock.now += 15
    found, age = figures.current()
    # The read begun after the first scrape, not one of its own.
    assert found == ['read 2']
    assert reads.count == 2
    assert 0 <= age <= 15


def _read_under_way():
    """(figures, reads, gate): a first scrape read, and the read ahead
    it started held at ``gate`` until the test sets it."""
    gate = threading.Event()
    reads = Reads(gate)
    figures = ahead.ReadAhead(reads, max_age=120, clock=Clock())
    gate.set()
    figures.current()
    gate.clear()
    reads.started.clear()
    figures.start_next()
    assert reads.started.wait(10)
    return figures, reads, gate


def test_a_scrape_waits_for_a_read_still_under_way():
    figures, _reads, gate = _read_under_way()
    answered = []
    scrape = threading.Thread(target=lambda: answered.append(
        figures.current()))
    scrape.start()
    scrape.join(0.3)
    assert not answered, 'answered before the read under way ended'
    gate.set()
    scrape.join(10)
    assert answered[0][0] == ['read 2']


def test_figures_older_than_max_age_are_read_again():
    reads, clock = Reads(), Clock()
    figures = ahead.ReadAhead(reads, max_age=60, clock=clock)
    figures.current()
    clock.now += 61
    assert figures.current() == (['read 2'], 0.0)


def test_one_read_ahead_at_a_time():
    figures, reads, gate = _read_under_way()
    figures.start_next()
    gate.set()
    assert figures.current()[0] == ['read 2']
    assert reads.count == 2


def test_a_read_ahead_that_failed_is_read_again_at_the_scrape(caplog):
    calls = []

    def read():
        calls.append(1)
        if len(calls) == 2:
            raise RuntimeError('lost')
        return ['read %d' % len(calls)]
    figures = ahead.ReadAhead(read, max_age=120, clock=Clock())
    figures.current()
    figures.start_next()
    assert figures.current()[0] == ['read 3']
    assert 'reading them now' in caplog.text

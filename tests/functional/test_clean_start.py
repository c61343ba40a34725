"""A clean start of reserve-all-in-one looks clean: as the README's quick
start runs it with no cloud (a fresh state directory, the in-memory bus,
no nova nor placement), nothing it prints up to its banner is a WARNING
or a Python warning. The bus has no host to fall back from nor
heartbeats to miss, novaclient is given its endpoint interface by its
own name, and a periodic step that needs the absent cloud is skipped at
INFO. A real problem is still said: an unusable database is an ERROR
and the process exits non-zero."""
import os
import subprocess
import sys
import time

from tests.fixtures import placement

BANNER = 'reserve is running'
TIMEOUT = 120  # seconds, for the start or the failure


def _start(tmp_path, extra=''):
    """The all-in-one as a process; returns (process, path of its output
    log)."""
    conf = tmp_path / 'reserve.conf'
    conf.write_text('[api]\nhost_ip = 127.0.0.1\nport = %d\n%s'
                    % (placement.free_port(), extra))
    log_path = tmp_path / 'all-in-one.log'
    repo = os.path.dirname(os.path.dirname(os.path.dirname(
        os.path.abspath(__file__))))
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        [repo] + [p for p in os.environ.get('PYTHONPATH', '').split(
            os.pathsep) if p]))
    with open(log_path, 'w') as log:
        process = subprocess.Popen(
            [os.path.join(os.path.dirname(sys.executable),
                          'reserve-all-in-one'),
             '--config-file', str(conf),
             '--state-dir', str(tmp_path / 'state')],
            stdout=log, stderr=subprocess.STDOUT, cwd=str(tmp_path),
            env=env)
    return process, log_path


def _stop(process):
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def _output_until(process, log_path, text):
    """What the process printed up to the line holding ``text``, or all
    of it once it exited or the time is up."""
    deadline = time.monotonic() + TIMEOUT
    while True:
        output = log_path.read_text()
        if text in output:
            return output[:output.index(text)]
        if process.poll() is not None or time.monotonic() > deadline:
            return output
        time.sleep(0.2)


def _warnings(output):
    return [line for line in output.splitlines()
            if ' WARNING ' in line or 'Warning:' in line]


def test_a_clean_start_prints_no_warning_up_to_its_banner(tmp_path):
    process, log_path = _start(tmp_path)
    try:
        output = _output_until(process, log_path, BANNER)
        assert process.poll() is None, output
        assert BANNER in log_path.read_text(), output
        # It did start its services over the bus on the way.
        assert 'reserve-notification started' in output, output
        assert _warnings(output) == [], output
    finally:
        _stop(process)


def test_a_database_it_cannot_open_is_still_reported(tmp_path):
    missing = tmp_path / 'no-such-dir' / 'deeper' / 'reserve.sqlite'
    process, log_path = _start(
        tmp_path, '[database]\nconnection = sqlite:///%s\n' % missing)
    try:
        process.wait(TIMEOUT)
        output = log_path.read_text()
        assert process.returncode != 0, output
        assert BANNER not in output
        assert any(' ERROR ' in line and 'unable to open database file'
                   in line for line in output.splitlines()), output
    finally:
        _stop(process)

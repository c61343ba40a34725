"""What a polling dashboard gets from the API: requests per second and
latency of its routes, measured from outside with wrk.

Not a test: a script that prints figures. It starts a
``reserve-all-in-one`` of this checkout on a free loopback port with its
own temporary state directory (SQLite, the in-memory bus, noauth, its two
embedded GPU hosts, no cloud), fills it, then runs wrk (``--wrk``,
/usr/bin/wrk) for ``--duration`` seconds with 1 and then 16 connections
on each route:

* ``GET /v1`` (the version document);
* ``GET /v1/device-reservations``: the caller's 100 device reservations
  (``--rows``), made through the API (``POST``, one GPU each, each in a
  window of its own within the next day, each with its lease);
* ``GET /v1/flavors/availability``: ``--flavors`` catalogue flavors on a
  roomy nova host, written to the all-in-one's database;
* ``GET /v1/reservations``: the caller's flavor bookings (``--rows``,
  written to the database the same way);
* the same list while one more client books and cancels device
  reservations (each a commit after which the API's answers are made
  anew, see reserve.api.kept_answers);
* ``POST /v1/device-reservations``: a device reservation of one GPU in
  a future window (a wrk Lua script; the windows of a thread's
  connections are their own, so no two of them clash), in three shapes
  (POST_SHAPES): starting within the next day, so that the manager
  makes each one's lease at once, and each ``DELETE``d (cancelled) by
  the next request of the same wrk thread once created; the same 400
  days ahead, where the lease is left until the start comes within
  [devices]lease_lead_seconds; and kept (no DELETE), each in a new
  window 30 days ahead or more. The "unit reservation" of older notes
  is this device reservation (its devices were called units). The
  figure is POSTs per second; every POST must answer 201 and every
  DELETE 204: anything else is an error.

With ``--busy-core`` another process spins on one core meanwhile, as on
a shared machine. With ``--gunicorn`` (the default; ``--no-gunicorn``
to skip it) the 100-row list is measured again under gunicorn with
``--workers`` workers (of etc/reserve/gunicorn.conf.py's threads)
serving reserve.wsgi.api:application on the same database, with the
all-in-one stopped and no core kept busy: the two cores are gunicorn's
(and wrk's). Its workers are given time to boot and are warmed up
first, unmeasured.

For each it prints requests per second, p50 and p99 latency, the
server's CPU time per request (its processes' user and system time over
the run, divided by the requests answered: on a busy machine the figure
that says what a quiet one would serve) and the errors: wrk's socket
errors plus answers other than the route's expected ones. The targets:
300 requests/s on the 100-row lists and on availability, 100 POST/s,
all on the all-in-one with a core kept busy; 600 requests/s on the list
under gunicorn on two cores. Everything it starts is stopped and its
temporary directory removed at the end, failure or not; each wrk run is
bounded (its duration plus a timeout).

    .venv/bin/python tests/benchmarks/bench_api_polling.py
    .venv/bin/python tests/benchmarks/bench_api_polling.py --busy-core \\
        --duration 10
"""
import argparse
import datetime
import json
import multiprocessing
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request

REPO = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
sys.path.insert(0, REPO)

from tests.fixtures import all_in_one  # noqa: E402
from tests.fixtures.all_in_one import OWNER  # noqa: E402
from tests.fixtures.all_in_one import STARTUP_TIMEOUT  # noqa: E402

A100 = 'A100 SXM4 80GB'
HOST = 'gpu-a100-01'
# How long gunicorn's workers get to boot, then to warm up, unmeasured.
WARM_UP_SECONDS = 3
# The hour ahead where the listed bookings begin.
LIST_HOURS = 48
# The device reservations POSTed: (the route's words, the shape) where
# the shape is how many hours ahead the windows begin, how many a wrk
# thread has, seconds from one to the next and long, and whether each is
# DELETEd once made. [devices]lease_lead_seconds (a day) tells whether
# the manager makes each one's lease at once or when its start nears.
POST_SHAPES = [
    ('+DELETE, starts within a day', dict(
        hours_ahead=1, slots=60, spacing=660, length=600, delete=True)),
    ('+DELETE, starts in 400 days', dict(
        hours_ahead=24 * 400, slots=64, spacing=7200, length=3000,
        delete=True)),
    ('kept, starts in 30+ days', dict(
        hours_ahead=24 * 30, slots=4000, spacing=1800, length=1500,
        delete=False)),
]


def _iso(when):
    return when.replace(microsecond=0).isoformat() + 'Z'


class Server:
    """A process serving the API on a free loopback port, its output in
    ``log``; stopped (and, if need be, killed) by stop()."""

    def __init__(self, command, log, port, env=None, cwd=None):
        self.port = port
        self.url = 'http://127.0.0.1:%d' % self.port
        self.log = log
        self._out = open(log, 'w')
        self.process = subprocess.Popen(
            [part % {'port': self.port} for part in command],
            stdout=self._out, stderr=subprocess.STDOUT,
            env=env or all_in_one.checkout_env(), cwd=cwd,
            start_new_session=True)
        deadline = time.monotonic() + STARTUP_TIMEOUT
        while not all_in_one.answers(self.url):
            if self.process.poll() is not None or \
                    time.monotonic() > deadline:
                self.stop()
                raise RuntimeError('%s did not start:\n%s' % (
                    command[0], self.tail()))
            time.sleep(0.2)

    def cpu_seconds(self):
        """CPU time (user and system) used so far by the server's
        processes: its session's (gunicorn's workers included)."""
        ticks = 0
        for name in os.listdir('/proc'):
            if not name.isdigit():
                continue
            try:
                with open('/proc/%s/stat' % name) as stat:
                    # After the command's closing parenthesis: state,
                    # ppid, pgrp, session, ... utime (14th), stime.
                    fields = stat.read().rpartition(')')[2].split()
            except OSError:
                continue
            if int(fields[3]) == self.process.pid:
                ticks += int(fields[11]) + int(fields[12])
        return ticks / os.sysconf('SC_CLK_TCK')

    def tail(self, size=3000):
        self._out.flush()
        with open(self.log) as log:
            return log.read()[-size:]

    def stop(self):
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait()
        self._out.close()


def call(url, method, path, body=None, headers=OWNER, expect=200):
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(
        url + path, data=data, method=method,
        headers=dict(headers, **{'Content-Type': 'application/json'}))
    try:
        with urllib.request.urlopen(request, timeout=60) as got:
            status, text = got.status, got.read().decode()
    except urllib.error.HTTPError as exc:
        status, text = exc.code, exc.read().decode()
    if status != expect:
        raise RuntimeError('%s %s answered %d: %s' % (method, path, status,
                                                      text))
    return json.loads(text) if text else None


# the data ---------------------------------------------------------------

def fill_device_reservations(url, rows):
    """``rows`` device reservations of one A100 each, in windows of ten
    minutes of their own from an hour ahead, made through the API: each
    within [devices]lease_lead_seconds (a day), its lease made at once,
    for up to 115 rows."""
    base = datetime.datetime.utcnow() + datetime.timedelta(hours=1)
    for i in range(rows):
        start = base + datetime.timedelta(minutes=12 * i)
        call(url, 'POST', '/v1/device-reservations',
             {'count': 1, 'model': A100, 'host': HOST,
              'start': _iso(start),
              'end': _iso(start + datetime.timedelta(minutes=10))},
             expect=201)


def fill_catalogue(database_url, flavors, rows):
    """A roomy nova host, ``flavors`` catalogue flavors and ``rows``
    bookings of the noauth project, written to the all-in-one's database
    (no nova to read flavors from here)."""
    from oslo_config import cfg
    from reserve.common import context as reserve_context
    from reserve import conf as reserve_conf  # noqa: F401
    from reserve.db import bookings as bookings_db
    from reserve.db import flavors as flavors_db
    from reserve.db import hosts as hosts_db
    conf = cfg.CONF
    conf([], project='reserve', default_config_files=[])
    conf.set_override('connection', database_url, group='database')
    ctx = reserve_context.get_admin_context()
    hosts_db.host_create(ctx, dict(
        name='roomy.example.org', kind='nova', service_name='roomy',
        vcpus=10 ** 5, memory_mb=10 ** 9, local_gb=10 ** 7,
        reservable=True), {'gpu_model': 'a100'})
    record = {'vcpus': 1, 'memory_mb': 1024, 'disk_gb': 10,
              'ephemeral_gb': 0, 'swap_mb': 0, 'extra_specs': {}}
    made = []
    for i in range(flavors):
        name = 'bench.flavor-%02d' % i
        made.append(flavors_db.flavor_create(ctx, dict(
            name=name, nova_flavor_id=name, slots=10, active=True,
            is_public=True, max_length_hours=None,
            nova_flavor=dict(record, id=name, name=name))))
    now = datetime.datetime.utcnow()
    for i in range(rows):
        start = now + datetime.timedelta(hours=LIST_HOURS + i)
        bookings_db.booking_create(ctx, dict(
            project_id=OWNER['X-Project-Id'], user_id=OWNER['X-User-Id'],
            flavor_id=made[i % len(made)].id, instance_count=1,
            start=start, end=start + datetime.timedelta(hours=1),
            status='pending_create'))


# wrk ----------------------------------------------------------------------

POST_SCRIPT = r'''
-- POST a device reservation of one GPU (with delete, then DELETE it: the
-- next request of this thread); each thread has windows of its own.
local headers = %(headers)s
local base = %(base)d
local slots, spacing, length = %(slots)d, %(spacing)d, %(length)d
local delete = %(delete)s
local counter = 0
local to_delete = {}
local threads = {}
local index = 0

function setup(thread)
  thread:set("tid", index)
  index = index + 1
  table.insert(threads, thread)
end

function init(args)
  created, deleted, other = 0, 0, 0
  statuses = ""
end

local function iso(seconds)
  return os.date("!%%Y-%%m-%%dT%%H:%%M:%%SZ", seconds)
end

function request()
  local path = table.remove(to_delete)
  if path then
    return wrk.format("DELETE", path, headers)
  end
  counter = counter + 1
  -- The thread's windows, reused in turn: with delete, one is free again
  -- once its DELETE is answered; without, there are more than it posts.
  local slot = tid * slots + counter %% slots
  local start = base + slot * spacing
  local body = '{"count": 1, "model": "%(model)s", ' ..
    '"host": "%(host)s", "start": "' .. iso(start) .. '", "end": "' ..
    iso(start + length) .. '"}'
  return wrk.format("POST", "/v1/device-reservations", headers, body)
end

function response(status, headers, body)
  if status == 201 then
    created = created + 1
    local location = headers["Location"] or headers["location"]
    if delete then
      table.insert(to_delete, (location:gsub("^https?://[^/]+", "")))
    end
  elseif status == 204 then
    deleted = deleted + 1
  else
    other = other + 1
    if #statuses < 200 then statuses = statuses .. status .. " " end
  end
end

function done(summary, latency, requests)
  local c, d, o, s = 0, 0, 0, ""
  for _, thread in ipairs(threads) do
    c = c + thread:get("created")
    d = d + thread:get("deleted")
    o = o + thread:get("other")
    s = s .. thread:get("statuses")
  end
  io.write(string.format("POST-COUNTS created=%%d deleted=%%d other=%%d " ..
                         "statuses=%%s\n", c, d, o, s))
end
'''

GET_SCRIPT = r'''
local headers = %(headers)s
function request()
  return wrk.format("GET", "%(path)s", headers)
end
'''


def _lua_headers(headers):
    return '{%s}' % ', '.join('["%s"] = "%s"' % item
                              for item in sorted(headers.items()))


_UNITS = {'us': 0.001, 'ms': 1.0, 's': 1000.0, 'm': 60000.0}


def _ms(text):
    number, unit = re.match(r'([\d.]+)(\w+)', text).groups()
    return float(number) * _UNITS[unit]


def parse_wrk(output):
    """{rps, p50, p99 (ms), requests, socket_errors, non_2xx} of wrk
    --latency output."""
    found = {'socket_errors': 0, 'non_2xx': 0}
    found['rps'] = float(re.search(r'Requests/sec:\s+([\d.]+)',
                                   output).group(1))
    found['requests'] = int(re.search(r'(\d+) requests in', output)
                            .group(1))
    for pct in ('50', '99'):
        found['p' + pct] = _ms(re.search(
            r'^\s+%s(?:\.000)?%%\s+(\S+)' % pct, output, re.M).group(1))
    errors = re.search(r'Socket errors: connect (\d+), read (\d+), '
                       r'write (\d+), timeout (\d+)', output)
    if errors:
        found['socket_errors'] = sum(int(g) for g in errors.groups())
    non_2xx = re.search(r'Non-2xx or 3xx responses: (\d+)', output)
    if non_2xx:
        found['non_2xx'] = int(non_2xx.group(1))
    return found


def _wrk(args, script, connections, work, url):
    path = os.path.join(work, 'wrk-%d.lua' % time.monotonic_ns())
    with open(path, 'w') as out:
        out.write(script)
    threads = min(connections, 2)
    return [args.wrk, '-t%d' % threads, '-c%d' % connections,
            '-d%ds' % args.duration, '--latency', '--timeout', '10s',
            '-s', path, url]


def run_wrk(args, server, script, connections, work, beside=None):
    """wrk's figures of ``script``; with ``beside`` (a script), a second
    wrk of one connection runs it meanwhile, whose output is
    found['beside']."""
    cpu = server.cpu_seconds()
    other = None
    if beside:
        other = subprocess.Popen(_wrk(args, beside, 1, work, server.url),
                                 stdout=subprocess.PIPE,
                                 stderr=subprocess.PIPE, text=True)
    try:
        output = subprocess.run(_wrk(args, script, connections, work,
                                     server.url),
                                capture_output=True, text=True,
                                timeout=args.duration + 60,
                                check=True).stdout
        beside_output = (other.communicate(timeout=args.duration + 60)[0]
                         if other else None)
    except subprocess.CalledProcessError as exc:
        raise RuntimeError('wrk failed: %s' % exc.stderr)
    finally:
        if other and other.poll() is None:
            other.kill()
            other.wait()
    found = parse_wrk(output)
    # The server's CPU time per request: what a quiet machine's figure
    # follows, whatever else the machine runs meanwhile (with a script
    # beside, its requests' CPU is counted too).
    found['cpu_ms'] = (server.cpu_seconds() - cpu) * 1000 / max(
        found['requests'], 1)
    found['beside'] = beside_output
    return output, found


def get_route(args, server, path, headers, connections, work,
              booking=False):
    """A GET route's figures; with ``booking``, while one more client
    makes and cancels device reservations (each a commit that the
    answers kept must notice)."""
    output, found = run_wrk(args, server, GET_SCRIPT % {
        'headers': _lua_headers(headers), 'path': path}, connections, work,
        beside=_post_script(POST_SHAPES[0][1]) if booking else None)
    found['errors'] = found['socket_errors'] + found['non_2xx']
    if booking:
        created, deleted, other, _statuses = _post_counts(found['beside'])
        found['errors'] += other
        found['note'] = 'meanwhile %d booked, %d cancelled' % (created,
                                                               deleted)
    return found


def _post_script(shape):
    """The POST script of a shape of POST_SHAPES."""
    headers = dict(OWNER, **{'Content-Type': 'application/json'})
    return POST_SCRIPT % dict(
        shape, headers=_lua_headers(headers), model=A100, host=HOST,
        base=int(time.time()) + shape['hours_ahead'] * 3600,
        delete='true' if shape['delete'] else 'false')


def _post_counts(output):
    """created, deleted, other (counts) and the other statuses (text) of
    the POST script's output."""
    counts = re.search(r'POST-COUNTS created=(\d+) deleted=(\d+) '
                       r'other=(\d+) statuses=(.*)', output)
    created, deleted, other = (int(g) for g in counts.groups()[:3])
    return created, deleted, other, counts.group(4).strip()


def post_route(args, server, shape, connections, work):
    output, found = run_wrk(args, server, _post_script(shape), connections,
                            work)
    created, deleted, other, statuses = _post_counts(output)
    seconds = found['requests'] / found['rps'] if found['rps'] else 1
    found['rps'] = created / seconds
    found['errors'] = found['socket_errors'] + other
    found['note'] = '%d created, %d cancelled%s' % (
        created, deleted, (', other: %s' % statuses) if other else '')
    return found


def warm_up(args, server, path, headers, work):
    """Requests on every worker before the figures: gunicorn answers once
    its first worker has booted, and each worker's first requests read the
    policy and build the list's statements; in a measured run, the other
    workers' imports and first requests would be charged to its
    requests."""
    time.sleep(WARM_UP_SECONDS)
    get_route(argparse.Namespace(**dict(vars(args), duration=WARM_UP_SECONDS)),
              server, path, headers, 16, work)


# the busy core -------------------------------------------------------------

def _spin():
    while True:
        pass


def start_burner():
    burner = multiprocessing.Process(target=_spin, daemon=True)
    burner.start()
    return burner


def stop_burner(burner):
    if burner is not None and burner.is_alive():
        burner.terminate()
        burner.join(5)
        if burner.is_alive():
            burner.kill()
            burner.join()


# the run -------------------------------------------------------------------

def _routes(args):
    return [
        ('GET /v1', '/v1', OWNER),
        ('GET /v1/device-reservations (%d rows)' % args.rows,
         '/v1/device-reservations', OWNER),
        ('GET /v1/flavors/availability (%d flavors)' % args.flavors,
         '/v1/flavors/availability', OWNER),
        ('GET /v1/reservations (%d rows)' % args.rows,
         '/v1/reservations', OWNER),
    ]


def _line(server, route, connections, found):
    print('%-11s %-58s %3d %7.0f %7.1f %7.1f %8.2f %6d  %s' % (
        server, route, connections, found['rps'], found['p50'],
        found['p99'], found['cpu_ms'], found['errors'],
        found.get('note', '')), flush=True)


def _header():
    print('%-11s %-58s %3s %7s %7s %7s %8s %6s' % (
        'server', 'route', 'c', 'req/s', 'p50 ms', 'p99 ms', 'CPU ms',
        'errors'))


def _write_config(work, port, threads):
    config = os.path.join(work, 'reserve.conf')
    with open(config, 'w') as out:
        # Loopback only; no quota in the way; no access log line per
        # request (the figures are the API's, not the log's).
        out.write('[DEFAULT]\ndefault_log_levels = '
                  'reserve.cmd.api=WARNING,reserve.wsgi.api=WARNING,'
                  'gunicorn.access=WARNING\n\n'
                  '[api]\nhost_ip = 127.0.0.1\nport = %d\n%s\n'
                  '[worker]\nreconcile_interval = 3600\n\n'
                  '[quota]\ndevice_reservations = -1\n'
                  'device_hours = -1\nreservations = -1\n'
                  'instance_hours = -1\n' % (
                      port, 'server_threads = %d\n' % threads
                      if threads else ''))
    return config


def _counts(found, rows):
    if found != rows:
        raise RuntimeError('expected %d rows, the API shows %d' % (rows,
                                                                   found))


def run(args):
    work = tempfile.mkdtemp(prefix='bench-api-polling-')
    servers, burner = [], None
    try:
        port = all_in_one.free_port()
        config = _write_config(work, port, args.server_threads)
        state = os.path.join(work, 'state')
        aio = Server([all_in_one.executable('reserve-all-in-one'),
                      '--config-file', config, '--state-dir', state],
                     os.path.join(work, 'all-in-one.log'), port, cwd=work)
        servers.append(aio)
        database_url = 'sqlite:///%s' % os.path.join(state,
                                                     'reserve.sqlite')
        fill_device_reservations(aio.url, args.rows)
        fill_catalogue(database_url, args.flavors, args.rows)
        _counts(len(call(aio.url, 'GET', '/v1/device-reservations')[
            'device_reservations']), args.rows)
        _counts(len(call(aio.url, 'GET', '/v1/reservations')[
            'reservations']), args.rows)
        _counts(len(call(aio.url, 'GET', '/v1/flavors/availability')[
            'availability']), args.flavors)
        if args.busy_core:
            burner = start_burner()
        print('wrk %ds per run%s; %d device reservations, %d bookings, '
              '%d flavors' % (args.duration, ', one core kept busy'
                              if burner else '', args.rows, args.rows,
                              args.flavors))
        _header()
        for route, path, headers in _routes(args):
            for connections in args.connections:
                _line('all-in-one', route, connections, get_route(
                    args, aio, path, headers, connections, work))
        _route, path, headers = _routes(args)[1]
        _line('all-in-one', 'GET /v1/device-reservations while booking',
              16, get_route(args, aio, path, headers, 16, work,
                            booking=True))
        for words, shape in POST_SHAPES:
            for connections in args.connections:
                _line('all-in-one', 'POST /v1/device-reservations %s' %
                      words, connections,
                      post_route(args, aio, shape, connections, work))
        if args.gunicorn:
            # Two cores for gunicorn: no busy core, and the all-in-one
            # (whose manager and worker run beside its API) stopped.
            stop_burner(burner)
            aio.stop()
            # The all-in-one's defaults, said in a file of its own.
            embedded = os.path.join(work, 'wsgi.conf')
            with open(embedded, 'w') as out:
                out.write('[api]\nauth_strategy = noauth\n\n'
                          '[database]\nconnection = %s\n' % database_url)
            env = dict(all_in_one.checkout_env(),
                       RESERVE_CONFIG_FILE='%s,%s' % (config, embedded))
            gunicorn = Server(
                [all_in_one.executable('gunicorn'),
                 '--workers', str(args.workers),
                 '--bind', '127.0.0.1:%(port)s',
                 '--access-logfile', os.devnull, '--config',
                 os.path.join(REPO, 'etc', 'reserve', 'gunicorn.conf.py'),
                 'reserve.wsgi.api:application'],
                os.path.join(work, 'gunicorn.log'), all_in_one.free_port(),
                env=env, cwd=work)
            servers.append(gunicorn)
            route, path, headers = _routes(args)[1]
            warm_up(args, gunicorn, path, headers, work)
            for connections in args.connections:
                _line('gunicorn/%d' % args.workers, route, connections,
                      get_route(args, gunicorn, path, headers,
                                connections, work))
    except BaseException:
        for server in servers:
            print('--- end of %s:\n%s' % (server.log, server.tail()),
                  file=sys.stderr)
        raise
    finally:
        stop_burner(burner)
        for server in reversed(servers):
            server.stop()
        shutil.rmtree(work, ignore_errors=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--duration', type=int, default=10,
                        help='seconds of each wrk run')
    parser.add_argument('--connections', type=lambda v: [
        int(c) for c in v.split(',')], default=[1, 16])
    parser.add_argument('--rows', type=int, default=100)
    parser.add_argument('--flavors', type=int, default=10)
    parser.add_argument('--busy-core', action='store_true',
                        help='spin a process on one core meanwhile')
    parser.add_argument('--no-gunicorn', dest='gunicorn',
                        action='store_false')
    parser.add_argument('--workers', type=int, default=2)
    parser.add_argument('--server-threads', type=int, default=0,
                        help='[api] server_threads (default: the '
                             'option\'s own default)')
    parser.add_argument('--wrk', default=shutil.which('wrk') or
                        '/usr/bin/wrk')
    run(parser.parse_args())


if __name__ == '__main__':
    main()

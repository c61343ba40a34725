"""Where the time of one API request goes: the CPU time a route costs,
measured in-process, and its profile.

Not a test: a script that prints figures. It starts a
``reserve-all-in-one`` of this checkout and fills it as
bench_api_polling.py does (``--rows`` device reservations and bookings,
``--flavors`` flavors), then builds the WSGI application
(reserve.wsgi.api, as gunicorn does) on the same database in this
process and calls it ``--requests`` times per route, with no server or
socket in between, and none of the answers kept
(``[api] kept_answers = 0``: each is made anew). For each route it
prints the CPU time of a request (time.process_time, this process only)
and, with ``--profile``, the functions that took the most of it
(cProfile, cumulative and own time).

    .venv/bin/python tests/benchmarks/profile_api_route.py
    .venv/bin/python tests/benchmarks/profile_api_route.py --profile \\
        --route /v1/device-reservations
"""
import argparse
import cProfile
import io
import os
import pstats
import shutil
import sys
import tempfile
import time

REPO = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
sys.path.insert(0, REPO)

from tests.benchmarks import bench_api_polling as polling  # noqa: E402
from tests.fixtures import all_in_one  # noqa: E402
from tests.fixtures.all_in_one import OWNER  # noqa: E402

ROUTES = ('/v1', '/v1/device-reservations', '/v1/flavors/availability',
          '/v1/reservations')


def _environ(path, headers):
    environ = {
        'REQUEST_METHOD': 'GET', 'PATH_INFO': path, 'QUERY_STRING': '',
        'SERVER_NAME': '127.0.0.1', 'SERVER_PORT': '80',
        'REMOTE_ADDR': '127.0.0.1', 'SERVER_PROTOCOL': 'HTTP/1.1',
        'wsgi.url_scheme': 'http', 'wsgi.input': io.BytesIO(b''),
        'wsgi.errors': sys.stderr, 'wsgi.multithread': True,
        'wsgi.multiprocess': False, 'wsgi.run_once': False,
        'wsgi.version': (1, 0)}
    for name, value in headers.items():
        environ['HTTP_' + name.upper().replace('-', '_')] = value
    return environ


def call(application, path, headers=OWNER):
    """One GET through the whole middleware stack; its status and body."""
    answer = {}

    def start_response(status, _headers, exc_info=None):
        answer['status'] = status
    body = b''.join(application(_environ(path, headers), start_response))
    if not answer['status'].startswith('200'):
        raise RuntimeError('GET %s answered %s: %s' % (
            path, answer['status'], body[:500]))
    return body


def measure(application, path, requests, profile, dump=None):
    for _ in range(20):
        call(application, path)
    profiler = cProfile.Profile() if profile else None
    started = time.process_time()
    if profiler:
        profiler.enable()
    for _ in range(requests):
        call(application, path)
    if profiler:
        profiler.disable()
        if dump:
            profiler.dump_stats(dump)
    cpu_ms = (time.process_time() - started) * 1000 / requests
    print('%-30s %7.2f ms CPU a request%s' % (
        path, cpu_ms, ' (profiled)' if profile else ''), flush=True)
    if profiler:
        for order in ('cumulative', 'tottime'):
            out = io.StringIO()
            pstats.Stats(profiler, stream=out).sort_stats(order) \
                .print_stats(35)
            print(out.getvalue())


def application_on(config, database_url, work):
    embedded = os.path.join(work, 'wsgi.conf')
    with open(embedded, 'w') as out:
        # The cost of making each answer: none is kept (kept_answers).
        out.write('[api]\nauth_strategy = noauth\nkept_answers = 0\n\n'
                  '[database]\nconnection = %s\n' % database_url)
    os.environ['RESERVE_CONFIG_FILE'] = '%s,%s' % (config, embedded)
    from reserve.wsgi import api
    return api.application


def run(args):
    work = tempfile.mkdtemp(prefix='profile-api-route-')
    aio = None
    try:
        port = all_in_one.free_port()
        config = polling._write_config(work, port, 0)
        state = os.path.join(work, 'state')
        aio = polling.Server([all_in_one.executable('reserve-all-in-one'),
                              '--config-file', config, '--state-dir',
                              state],
                             os.path.join(work, 'all-in-one.log'), port,
                             cwd=work)
        database_url = 'sqlite:///%s' % os.path.join(state,
                                                     'reserve.sqlite')
        polling.fill_device_reservations(aio.url, args.rows)
        aio.stop()
        aio = None
        polling.fill_catalogue(database_url, args.flavors, args.rows)
        # The application parses the configuration anew.
        from oslo_config import cfg
        cfg.CONF.clear()
        application = application_on(config, database_url, work)
        for path in args.route or ROUTES:
            measure(application, path, args.requests, args.profile,
                    args.dump and '%s%s.prof' % (
                        args.dump, path.replace('/', '_')))
    finally:
        if aio is not None:
            aio.stop()
        shutil.rmtree(work, ignore_errors=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--rows', type=int, default=100)
    parser.add_argument('--flavors', type=int, default=10)
    parser.add_argument('--requests', type=int, default=300)
    parser.add_argument('--route', action='append',
                        help='a path to GET (repeatable; default: %s)'
                             % ', '.join(ROUTES))
    parser.add_argument('--profile', action='store_true')
    parser.add_argument('--dump', metavar='PREFIX',
                        help='with --profile, write each route\'s profile '
                             'to PREFIX<route>.prof')
    run(parser.parse_args())


if __name__ == '__main__':
    main()

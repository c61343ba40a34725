"""reserve.wsgi.api imported the way a WSGI server imports it."""
import os
import subprocess
import sys
import textwrap

REPO = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))

SCRIPT = textwrap.dedent('''
    import sys
    # What gunicorn leaves in argv: it must not reach oslo.config.
    sys.argv = ['gunicorn', '--workers', '2', '--bind', '127.0.0.1:8785',
                'reserve.wsgi.api:application']

    import gc
    from reserve.wsgi import api
    from reserve.db import api as db_api
    from reserve.db import hosts as hosts_db
    from reserve.db import models
    import webtest

    assert api.init_application() is api.application
    # What start-up built is out of the garbage collector's way.
    print('RESULT', gc.get_freeze_count() > 10000)
    models.Base.metadata.create_all(db_api.get_engine())
    app = webtest.TestApp(api.application,
                          extra_environ={'REMOTE_ADDR': '127.0.0.1'})
    # No nova here: a host and a catalogue entry as the API records them.
    from reserve.common import context
    from reserve.db import flavors as flavors_db
    ctx = context.get_admin_context()
    hosts_db.host_create(ctx, {'name': 'h1', 'kind': 'nova', 'vcpus': 8,
                             'memory_mb': 8192, 'local_gb': 100})
    flavors_db.flavor_create(ctx, {
        'name': 'gpu.a100', 'nova_flavor_id': 'a100', 'slots': 2,
        'nova_flavor': {'id': 'a100', 'vcpus': 1, 'memory_mb': 1024,
                        'disk_gb': 10}})
    print('RESULT', app.get('/').json['versions'][0]['id'])
    print('RESULT', app.get('/healthcheck').status_int)
    created = app.post_json('/v1/reservations', {
        'flavor_id': 'gpu.a100', 'start': '2099-01-01T00:00:00Z',
        'end': '2099-01-02T00:00:00Z'})
    print('RESULT', created.status_int)
    print('RESULT',
          app.get('/v1/reservations').json['reservations'][0]['project_id'])
''')


def test_application_under_a_wsgi_server(tmp_path):
    conf = tmp_path / 'reserve.conf'
    conf.write_text(textwrap.dedent('''
        [DEFAULT]
        transport_url = fake://
        [api]
        auth_strategy = noauth
        [database]
        connection = sqlite:///%s
    ''' % (tmp_path / 'wsgi.sqlite')))
    env = dict(os.environ, RESERVE_CONFIG_FILE=str(conf),
               PYTHONPATH=os.pathsep.join(
                   filter(None, [REPO, os.environ.get('PYTHONPATH')])))
    result = subprocess.run([sys.executable, '-c', SCRIPT], env=env,
                            cwd=str(tmp_path), capture_output=True,
                            text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    results = [line.split()[1] for line in result.stdout.splitlines()
               if line.startswith('RESULT ')]
    assert results == ['True', 'v1.0', '200', '201', 'noauth-project']
    # The database of the config file was used, not one in the cwd.
    assert (tmp_path / 'wsgi.sqlite').exists()
    assert not (tmp_path / 'reserve.sqlite').exists()

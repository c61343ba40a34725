"""A small keystone on loopback: what reserve asks of the identity API.

A real HTTP server (http.server, a thread) that answers as keystone v3
does for the calls keystoneauth makes on behalf of reserve:

* ``GET /`` (300, the versions list) and ``GET /v3`` (200, one version):
  version discovery;
* ``POST /v3/auth/tokens`` with the password method and a project scope:
  201, the token id in ``X-Subject-Token``, the token body with its roles
  and a service catalog whose ``identity`` endpoints point here (at the
  root, as many deployments register it, so the v3 endpoint is found by
  discovery);
* ``GET /v3/auth/tokens``: a token handed to reserve-api validated, as
  keystonemiddleware asks (``X-Subject-Token``; 404 for one keystone
  never issued); ``user_token`` issues one of a user on a project;
* ``GET /v3/users/{user_id}``: 401 without a valid ``X-Auth-Token``, 403
  without the admin or reader role, 404 with keystone's error body for an
  unknown user, else ``{"user": {...}}``, where ``email`` is there only if
  the user has one (keystone stores it as an extra attribute).

``fail_users_with`` makes ``GET /v3/users/...`` answer that HTTP status;
``requests`` records (method, path) of every request.
"""
import datetime
import http.server
import json
import threading
import urllib.parse
import uuid

VERSION_ID = 'v3.14'
DOMAIN = {'id': 'default', 'name': 'Default'}


def _now():
    return datetime.datetime.now(datetime.timezone.utc).replace(tzinfo=None)


def _ts(value):
    return value.strftime('%Y-%m-%dT%H:%M:%S.%fZ')


class FakeKeystone:
    def __init__(self, username='reserve', password='secret',
                 project_name='service', roles=('admin',)):
        self.service_user = {'id': uuid.uuid4().hex, 'name': username,
                             'password': password, 'roles': list(roles)}
        self.service_project = {'id': uuid.uuid4().hex,
                                'name': project_name}
        self.users = {}
        self.tokens = {}
        self.requests = []
        self.fail_users_with = None
        self._server = None
        self._thread = None

    # users ------------------------------------------------------------------

    def add_user(self, name, email=None, user_id=None, enabled=True):
        user_id = user_id or uuid.uuid4().hex
        user = {'id': user_id, 'name': name, 'domain_id': DOMAIN['id'],
                'enabled': enabled, 'password_expires_at': None,
                'options': {}}
        if email is not None:
            user['email'] = email
        self.users[user_id] = user
        return user

    # server -----------------------------------------------------------------

    @property
    def url(self):
        host, port = self._server.server_address[:2]
        return 'http://%s:%d' % (host, port)

    @property
    def auth_url(self):
        return self.url + '/v3'

    def start(self):
        fake = self

        class Handler(_Handler):
            keystone = fake

        self._server = http.server.ThreadingHTTPServer(('127.0.0.1', 0),
                                                       Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={'poll_interval': 0.05},
            daemon=True)
        self._thread.start()
        return self

    def stop(self):
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._thread.join(5)
            self._server = None

    def user_requests(self):
        return [p for m, p in self.requests if p.startswith('/v3/users/')]

    # answers ----------------------------------------------------------------

    def version(self):
        return {'id': VERSION_ID, 'status': 'stable',
                'updated': '2020-04-07T00:00:00Z',
                'links': [{'rel': 'self', 'href': self.url + '/v3/'}],
                'media-types': [{
                    'base': 'application/json',
                    'type': 'application/vnd.openstack.identity-v3+json'}]}

    def catalog(self):
        endpoints = [{'id': uuid.uuid4().hex, 'interface': interface,
                      'region': 'RegionOne', 'region_id': 'RegionOne',
                      'url': self.url}
                     for interface in ('public', 'internal', 'admin')]
        return [{'id': uuid.uuid4().hex, 'type': 'identity',
                 'name': 'keystone', 'endpoints': endpoints}]

    def issue_token(self, body):
        """(status, headers, body) of POST /v3/auth/tokens."""
        try:
            identity = body['auth']['identity']
            assert identity['methods'] == ['password']
            user = identity['password']['user']
            domain = user.get('domain', {})
            scope = body['auth']['scope']['project']
        except (KeyError, TypeError, AssertionError):
            return _error(400, 'Bad Request', 'Expecting to find auth in '
                          'request body.')
        svc = self.service_user
        if (user.get('name') != svc['name'] or
                user.get('password') != svc['password'] or
                domain.get('name', DOMAIN['name']) != DOMAIN['name'] and
                domain.get('id') != DOMAIN['id'] or
                scope.get('name') != self.service_project['name']):
            return _error(401, 'Unauthorized', 'The request you have made '
                          'requires authentication.')
        token_id, token = self._token(
            {'id': svc['id'], 'name': svc['name']}, self.service_project,
            svc['roles'])
        return 201, {'X-Subject-Token': token_id}, {'token': token}

    def _token(self, user, project, roles):
        """A new token (id, body) of ``user`` scoped to ``project``."""
        token_id = uuid.uuid4().hex
        now = _now()
        token = {
            'methods': ['password'],
            'user': {'id': user['id'], 'name': user['name'],
                     'domain': DOMAIN, 'password_expires_at': None},
            'audit_ids': [uuid.uuid4().hex[:22]],
            'issued_at': _ts(now),
            'expires_at': _ts(now + datetime.timedelta(hours=1)),
            'project': {'id': project['id'], 'name': project['name'],
                        'domain': DOMAIN},
            'is_domain': False,
            'roles': [{'id': uuid.uuid4().hex, 'name': r} for r in roles],
            'catalog': self.catalog(),
        }
        self.tokens[token_id] = {'user_id': user['id'], 'roles': list(roles),
                                 'body': token}
        return token_id, token

    def user_token(self, user, project_id, roles):
        """The id of a token of ``user`` (add_user's) on project
        ``project_id`` with ``roles``, as a user gets from
        ``openstack token issue``."""
        token_id, _ = self._token(
            user, {'id': project_id, 'name': project_id}, roles)
        return token_id

    def validate_token(self, service_token, subject_token):
        """(status, headers, body) of GET /v3/auth/tokens: what
        keystonemiddleware asks of a token it was handed."""
        if service_token not in self.tokens:
            return _error(401, 'Unauthorized', 'The request you have made '
                          'requires authentication.')
        found = self.tokens.get(subject_token)
        if found is None:
            return _error(404, 'Not Found', 'Could not find token: %s.' %
                          subject_token)
        return 200, {'X-Subject-Token': subject_token}, {
            'token': found['body']}

    def get_user(self, token_id, user_id):
        token = self.tokens.get(token_id)
        if token is None:
            return _error(401, 'Unauthorized', 'The request you have made '
                          'requires authentication.')
        if not {'admin', 'reader'} & set(token['roles']):
            return _error(403, 'Forbidden', 'You are not authorized to '
                          'perform the requested action: identity:get_user.')
        if self.fail_users_with:
            return _error(self.fail_users_with, 'Error', 'injected failure')
        user = self.users.get(user_id)
        if user is None:
            return _error(404, 'Not Found', 'Could not find user: %s.' %
                          user_id)
        links = {'self': '%s/v3/users/%s' % (self.url, user_id)}
        body = dict(user, links=links)
        return 200, {}, {'user': body}


def configure(conf, keystone, group='keystone', username='reserve',
              password='secret', project_name='service'):
    """Point ``[group]`` at ``keystone`` with password auth, as a deployment
    does; returns the function that undoes it.

    keystoneauth registers the password plugin's options (auth_url is a
    required one) on first use; they are unregistered again, or a later
    parse of the global config would fail for want of auth_url.
    """
    from keystoneauth1 import loading as ks_loading

    before = set(conf[group].keys())
    added = [opt for opt in
             ks_loading.get_auth_plugin_conf_options('password')
             if opt.dest not in before]
    conf.register_opts(added, group=group)
    values = {'auth_type': 'password', 'auth_url': keystone.auth_url,
              'username': username, 'password': password,
              'project_name': project_name,
              'user_domain_name': DOMAIN['name'],
              'project_domain_name': DOMAIN['name']}
    for name, value in values.items():
        conf.set_override(name, value, group=group)

    def undo():
        for name in values:
            conf.clear_override(name, group=group)
        # Options can only be unregistered from an unparsed config.
        conf.clear()
        for opt in added:
            conf.unregister_opt(opt, group=group)

    return undo


def _error(code, title, message):
    return code, {}, {'error': {'code': code, 'title': title,
                                'message': message}}


class _Handler(http.server.BaseHTTPRequestHandler):
    keystone = None  # set by FakeKeystone.start

    def log_message(self, fmt, *args):
        pass

    def _answer(self, status, headers, body):
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header('Content-Type', 'application/json')
        self.send_header('Content-Length', str(len(data)))
        self.send_header('Vary', 'X-Auth-Token')
        for name, value in headers.items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):
        ks = self.keystone
        path = self.path.split('?')[0]
        ks.requests.append(('GET', path))
        if path == '/':
            return self._answer(300, {}, {'versions': {
                'values': [ks.version()]}})
        if path in ('/v3', '/v3/'):
            return self._answer(200, {}, {'version': ks.version()})
        if path.rstrip('/') == '/v3/auth/tokens':
            return self._answer(*ks.validate_token(
                self.headers.get('X-Auth-Token'),
                self.headers.get('X-Subject-Token')))
        if path.startswith('/v3/users/'):
            user_id = urllib.parse.unquote(path[len('/v3/users/'):])
            return self._answer(*ks.get_user(
                self.headers.get('X-Auth-Token'), user_id))
        return self._answer(*_error(404, 'Not Found', 'The resource could '
                                    'not be found.'))

    def do_POST(self):
        ks = self.keystone
        path = self.path.split('?')[0]
        ks.requests.append(('POST', path))
        length = int(self.headers.get('Content-Length') or 0)
        try:
            body = json.loads(self.rfile.read(length) or b'{}')
        except ValueError:
            body = None
        if path.rstrip('/') == '/v3/auth/tokens':
            return self._answer(*ks.issue_token(body))
        return self._answer(*_error(404, 'Not Found', 'The resource could '
                                    'not be found.'))

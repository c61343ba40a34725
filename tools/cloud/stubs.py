"""Stand-ins for three services nova calls that the loopback cloud lacks.

* glance (127.0.0.1:9292): one public image, IMAGE_ID, and the image schema.
* neutron (127.0.0.1:9696): every collection is empty, deletes succeed. Enough
  for servers booted with ``networks='none'`` to boot and be deleted.
* keystone (127.0.0.1:5001): every project exists (nova checks the project
  named in flavor access).

Standard Python modules only. Each request is logged to stderr.
Usage: python stubs.py
"""
import json
import re
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

GLANCE_PORT = 9292
NEUTRON_PORT = 9696
KEYSTONE_PORT = 5001

IMAGE_ID = 'f0afb3c3-e277-4cdb-a2ac-ca97344a3b8b'
_STAMP = '2026-01-01T00:00:00Z'
IMAGE = {
    'id': IMAGE_ID, 'name': 'reserve-fake-image', 'status': 'active',
    'visibility': 'public', 'protected': False, 'os_hidden': False,
    'container_format': 'bare', 'disk_format': 'raw',
    'min_disk': 0, 'min_ram': 0, 'size': 1048576, 'virtual_size': None,
    'checksum': None, 'os_hash_algo': None, 'os_hash_value': None,
    'owner': 'admin', 'tags': [], 'created_at': _STAMP, 'updated_at': _STAMP,
    'self': '/v2/images/' + IMAGE_ID, 'file': '/v2/images/%s/file' % IMAGE_ID,
    'schema': '/v2/schemas/image',
}
# glanceclient validates an image against this schema: every base property
# must be declared, anything else is an extra (string) property.
IMAGE_SCHEMA = {
    'name': 'image', 'links': [],
    'additionalProperties': {'type': 'string'},
    'properties': {name: {} for name in
                   list(IMAGE) + ['direct_url', 'locations', 'stores']},
}


class _Handler(BaseHTTPRequestHandler):
    protocol_version = 'HTTP/1.1'
    service = None  # set per server subclass

    def log_message(self, fmt, *args):
        sys.stderr.write('%s %s\n' % (self.service, fmt % args))
        sys.stderr.flush()

    def _reply(self, code, body=None):
        data = b'' if body is None else json.dumps(body).encode()
        self.send_response(code)
        if body is not None:
            self.send_header('Content-Type', 'application/json')
        self.send_header('Content-Length', str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _path(self):
        return self.path.split('?', 1)[0].rstrip('/')

    def _drain(self):
        length = int(self.headers.get('Content-Length') or 0)
        if length:
            self.rfile.read(length)

    def do_GET(self):
        self._reply(*getattr(self, 'get_' + self.service)(self._path()))

    def do_DELETE(self):
        self._drain()
        self._reply(204)

    def do_POST(self):
        self._drain()
        self._reply(501, {'message': 'not implemented by the stub'})

    do_PUT = do_PATCH = do_POST

    # -- per-service GET answers: (status, body) ---------------------------

    def get_glance(self, path):
        if path == '/v2/schemas/image':
            return 200, IMAGE_SCHEMA
        if path == '/v2/images':
            return 200, {'images': [IMAGE], 'first': '/v2/images',
                         'schema': '/v2/schemas/images'}
        if path == '/v2/images/' + IMAGE_ID:
            return 200, IMAGE
        if path in ('', '/versions'):
            return 200, {'versions': [{
                'id': 'v2.16', 'status': 'CURRENT',
                'links': [{'rel': 'self',
                           'href': 'http://127.0.0.1:%d/v2/' % GLANCE_PORT}]}]}
        return 404, {'message': 'no such image: ' + path}

    def get_keystone(self, path):
        match = re.match(r'^/v3/projects/([^/]+)$', path)
        if match:
            pid = match.group(1)
            return 200, {'project': {'id': pid, 'name': pid, 'enabled': True,
                                     'domain_id': 'default',
                                     'parent_id': 'default',
                                     'is_domain': False}}
        if path in ('', '/v3'):
            return 200, {'version': {
                'id': 'v3.14', 'status': 'stable',
                'links': [{'rel': 'self', 'href': 'http://127.0.0.1:%d/v3/'
                           % KEYSTONE_PORT}]}}
        return 404, {'error': {'code': 404, 'message': path}}

    def get_neutron(self, path):
        # collections ("/v2.0/ports", "/v2.0/security-groups.json") are empty
        match = re.match(r'^(?:/v2\.0)?/([a-z_-]+)(?:\.json)?$', path)
        if match:
            return 200, {match.group(1).replace('-', '_'): []}
        return 404, {'NeutronError': {'type': 'NotFound', 'message': path,
                                      'detail': ''}}


def serve(service, port):
    handler = type(service + 'Handler', (_Handler,), {'service': service})
    server = ThreadingHTTPServer(('127.0.0.1', port), handler)
    server.daemon_threads = True
    return server


def main():
    servers = [serve('glance', GLANCE_PORT), serve('neutron', NEUTRON_PORT),
               serve('keystone', KEYSTONE_PORT)]
    for server in servers[1:]:
        threading.Thread(target=server.serve_forever, daemon=True).start()
    servers[0].serve_forever()


if __name__ == '__main__':
    main()

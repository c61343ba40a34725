#!/usr/bin/env python3
"""Boot servers of a flavor on the loopback nova and say where each went.

The quick start's "first hour" boots the reserved flavor (a booking's
``compute_flavor``) more times than the booking holds, to see the fence:
the servers the booking holds go ACTIVE on the reserved hosts, the next
one finds no valid host. Nova answers every boot with the same 202, and
only a second look shows which is which; this tool boots them, waits for
each to leave BUILD and prints one line per server: its name, status and
host, or the fault that stopped it::

    $ tools/boot-reserved.py <compute_flavor> --count 3 --delete
    vm1  ACTIVE  host1
    vm2  ACTIVE  host2
    vm3  ERROR   No valid host was found. There are not enough hosts ...
    deleted 3 server(s)

Nova runs without keystone there and trusts identity headers: the
servers are booted as the project ``noauth-project`` with the roles
member and reader, as a user of it would; they are read with the admin
role too, which the host (``OS-EXT-SRV-ATTR:host``) needs. ``--delete``
deletes them once shown (also on Ctrl-C or an error). Standard library
only. The exit status is 0 when every server went ACTIVE, 1 otherwise.
"""
import argparse
import json
import sys
import time
import urllib.error
import urllib.parse
import urllib.request

NOVA_URL = 'http://127.0.0.1:8774/v2.1'
# The image the loopback nova's fake driver accepts (tools/cloud).
IMAGE = 'f0afb3c3-e277-4cdb-a2ac-ca97344a3b8b'
API_VERSION = 'compute 2.96'
USER_ROLES = 'member,reader'
# OS-EXT-SRV-ATTR:host is shown to administrators only.
READ_ROLES = 'admin,member,reader'


class NovaError(Exception):
    def __init__(self, status, message):
        super().__init__('%s (HTTP %s)' % (message, status))
        self.status = status


def _message(body, fallback):
    """The message of a nova error body ({"<kind>": {"message": ...}}),
    on one line."""
    message = body
    try:
        doc = json.loads(body)
    except ValueError:
        doc = None
    if isinstance(doc, dict):
        message = ''
        for value in doc.values():
            if isinstance(value, dict) and value.get('message'):
                message = str(value['message'])
                break
    return ' '.join(message.split()) or str(fallback)


class Nova:
    """The few compute API calls this tool makes, with noauth headers."""

    def __init__(self, url, project, user, roles, timeout=30):
        self.url = url.rstrip('/')
        self.project = project
        self.user = user
        self.roles = roles
        self.timeout = timeout

    def request(self, method, path, body=None, roles=None):
        headers = {'X-Auth-Token': 'reserve-quickstart',
                   'X-User-Id': self.user, 'X-Project-Id': self.project,
                   'X-Roles': roles or self.roles,
                   'OpenStack-API-Version': API_VERSION,
                   'Accept': 'application/json'}
        data = None
        if body is not None:
            data = json.dumps(body).encode()
            headers['Content-Type'] = 'application/json'
        request = urllib.request.Request(self.url + path, data=data,
                                         headers=headers, method=method)
        try:
            with urllib.request.urlopen(request,
                                        timeout=self.timeout) as response:
                text = response.read().decode()
        except urllib.error.HTTPError as exc:
            text = exc.read().decode(errors='replace')
            raise NovaError(exc.code, _message(text, exc.reason))
        except (urllib.error.URLError, OSError) as exc:
            reason = getattr(exc, 'reason', exc)
            raise SystemExit('boot-reserved: cannot reach nova at %s: %s '
                             '(is the loopback cloud up? tools/cloud/up.sh '
                             'or tools/quickstart.sh)' % (self.url, reason))
        return json.loads(text) if text.strip() else None

    def flavor_id(self, ref):
        """A flavor's ID from its ID or name (private ones included)."""
        quoted = urllib.parse.quote(ref, safe='')
        try:
            return self.request('GET', '/flavors/%s' % quoted,
                                roles=READ_ROLES)['flavor']['id']
        except NovaError as exc:
            if exc.status != 404:
                raise
        flavors = self.request('GET', '/flavors/detail?is_public=None',
                               roles=READ_ROLES)['flavors']
        found = [f['id'] for f in flavors if f.get('name') == ref]
        if len(found) != 1:
            raise SystemExit('boot-reserved: nova has %s flavor %r' % (
                'no' if not found else 'more than one', ref))
        return found[0]

    def boot(self, name, flavor_id, image):
        body = {'server': {'name': name, 'flavorRef': flavor_id,
                           'imageRef': image, 'networks': 'none'}}
        return self.request('POST', '/servers', body)['server']['id']

    def show(self, server_id):
        return self.request('GET', '/servers/%s' % server_id,
                            roles=READ_ROLES)['server']

    def delete(self, server_id):
        self.request('DELETE', '/servers/%s' % server_id)


def wait_built(nova, server_id, timeout, interval):
    """The server once it has left BUILD (or when the time is up)."""
    deadline = time.monotonic() + timeout
    while True:
        server = nova.show(server_id)
        if server.get('status') != 'BUILD' or time.monotonic() > deadline:
            return server
        time.sleep(interval)


def outcome(server):
    """Host of an ACTIVE server, else its fault (or task state)."""
    if server.get('status') == 'ACTIVE':
        return server.get('OS-EXT-SRV-ATTR:host') or '(host not shown)'
    fault = server.get('fault') or {}
    if fault.get('message'):
        return ' '.join(fault['message'].split())
    if server.get('status') == 'BUILD':
        return 'still building (task %s)' % server.get('OS-EXT-STS:'
                                                       'task_state')
    return server.get('OS-EXT-SRV-ATTR:host') or ''


def delete_all(nova, servers, timeout, interval):
    """Delete the servers and wait until nova no longer knows them."""
    left = []
    for name, server_id in servers:
        try:
            nova.delete(server_id)
            left.append((name, server_id))
        except NovaError as exc:
            if exc.status != 404:
                print('%s: not deleted: %s' % (name, exc), file=sys.stderr)
    deadline = time.monotonic() + timeout
    while left and time.monotonic() < deadline:
        time.sleep(interval)
        still = []
        for name, server_id in left:
            try:
                nova.show(server_id)
                still.append((name, server_id))
            except NovaError as exc:
                if exc.status != 404:
                    raise
        left = still
    for name, server_id in left:
        print('%s (%s): still there after %ds' % (name, server_id, timeout),
              file=sys.stderr)
    return not left


def parse_args(argv):
    parser = argparse.ArgumentParser(
        description='Boot servers of a flavor on the loopback nova, wait '
                    'for each to leave BUILD and print its name, status '
                    'and host (or the fault, such as "No valid host was '
                    'found.").')
    parser.add_argument(
        'flavor',
        help="flavor ID or name: a booking's compute_flavor (openstack "
             'reserve reservation show <id> -c compute_flavor), or a '
             'public flavor such as g1.vgpu')
    parser.add_argument('-n', '--count', type=int, default=1,
                        help='servers to boot (default: 1)')
    parser.add_argument('--name', default='vm',
                        help='name prefix: <name>1, <name>2, ... '
                             '(default: vm)')
    parser.add_argument('--delete', action='store_true',
                        help='delete the servers once shown')
    parser.add_argument('--project', default='noauth-project',
                        help='project to boot as (default: noauth-project, '
                             "reserve-all-in-one's without keystone)")
    parser.add_argument('--user', default='noauth-user',
                        help='user to boot as (default: noauth-user)')
    parser.add_argument('--roles', default=USER_ROLES,
                        help='roles to boot and delete with (default: '
                             '%s; servers are read with %s)' % (
                                 USER_ROLES, READ_ROLES))
    parser.add_argument('--image', default=IMAGE,
                        help='image ID (default: %s, the fake image of '
                             'the loopback cloud)' % IMAGE)
    parser.add_argument('--nova-url', default=NOVA_URL,
                        help='compute API (default: %s)' % NOVA_URL)
    parser.add_argument('--timeout', type=int, default=120,
                        help='seconds to wait for each server to leave '
                             'BUILD, and for the deletions (default: 120)')
    parser.add_argument('--interval', type=float, default=1.0,
                        help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.count < 1:
        parser.error('--count must be at least 1')
    return args


def main(argv=None):
    args = parse_args(argv)
    nova = Nova(args.nova_url, args.project, args.user, args.roles)
    try:
        flavor_id = nova.flavor_id(args.flavor)
    except NovaError as exc:
        raise SystemExit('boot-reserved: flavor %s: %s' % (args.flavor, exc))
    servers = []  # (name, id) of the servers nova accepted
    lines = []
    all_active = True
    try:
        # Boot them all first: they are scheduled together, as a project
        # booting its reserved servers at the start of its window would.
        for i in range(1, args.count + 1):
            name = '%s%d' % (args.name, i)
            try:
                servers.append((name, nova.boot(name, flavor_id,
                                                args.image)))
            except NovaError as exc:
                all_active = False
                lines.append((name, 'REFUSED', str(exc)))
        width = len('%s%d' % (args.name, args.count))
        for name, status, message in lines:
            print('%s  %-7s %s' % (name.ljust(width), status, message),
                  flush=True)
        for name, server_id in servers:
            server = wait_built(nova, server_id, args.timeout,
                                args.interval)
            status = server.get('status')
            all_active = all_active and status == 'ACTIVE'
            print('%s  %-7s %s' % (name.ljust(width), status,
                                   outcome(server)), flush=True)
    finally:
        if args.delete and servers:
            if not delete_all(nova, servers, args.timeout, args.interval):
                all_active = False
            else:
                print('deleted %d server(s)' % len(servers),
                      file=sys.stderr, flush=True)
    return 0 if all_active else 1


if __name__ == '__main__':
    sys.exit(main())

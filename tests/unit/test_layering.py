"""No upward import between the layers of reserve/.

A module's layer is its first name under reserve/ (reserve/db/api.py is
in db). The rules, tables below:

  LOWER    common conf db virt   import only from LOWER layers
  UPPER    every other layer     import from any layer
  plugins                        never imports reserve.devices.lifecycle
  plugins devices booking        never import reserve.manager nor
                                 reserve.worker (the daemons' endpoints)

capacity (the capacity model) is UPPER: it reads the plugins, and the
lower layers do not need it. Every layer must be in LOWER or UPPER, so
that a new package is placed on purpose. Imports are read with ast at
any depth (inside functions too); what stevedore or importlib loads by
name is not seen.
"""
import ast
import pathlib

import reserve

LOWER = {'common', 'conf', 'db', 'virt',
         '__init__', 'version'}  # the two modules directly under reserve/
UPPER = {'api', 'booking', 'capacity', 'cmd', 'devices', 'manager',
         'fence', 'notification', 'plugins', 'worker', 'wsgi'}
# The manager owns its lock and its events, the worker its casts: what
# they run is handed nothing of theirs and never calls back into them.
_ENDPOINTS = ('reserve.manager', 'reserve.worker')
FORBIDDEN = {
    # lifecycle drives the manager's requests; the device:gpu plugin runs
    # a reservation through reserve.devices.runs.
    'plugins': ('reserve.devices.lifecycle',) + _ENDPOINTS,
    'devices': _ENDPOINTS,
    'booking': _ENDPOINTS,
}

ROOT = pathlib.Path(reserve.__file__).parent


def module_name(path, root=ROOT):
    """reserve/db/api.py: 'reserve.db.api'; a package: its __init__'s."""
    parts = path.relative_to(root.parent).with_suffix('').parts
    return '.'.join(parts[:-1] if parts[-1] == '__init__' else parts)


def layer(name):
    """'reserve.db.api': 'db'; 'reserve': '__init__'; None outside."""
    parts = name.split('.')
    if parts[0] != 'reserve':
        return None
    return parts[1] if len(parts) > 1 else '__init__'


def imports(path, root=ROOT):
    """(line, name) of each import of a module. ``from a import b`` gives
    'a.b' (b a module or not); a relative import is made absolute."""
    package = module_name(path, root)
    if path.name != '__init__.py':
        package = package.rpartition('.')[0]
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ''
            if node.level:
                parent = package.rsplit('.', node.level - 1)[0]
                base = parent + '.' + base if base else parent
            for alias in node.names:
                yield node.lineno, base + '.' + alias.name


def violations(root=ROOT):
    found = []
    for path in sorted(root.rglob('*.py')):
        own = layer(module_name(path, root))
        for line, name in imports(path, root):
            other = layer(name)
            where = '%s:%d: %s imports %s' % (
                path.relative_to(root.parent), line, own, name)
            if own in LOWER and other is not None and other not in LOWER:
                found.append(where + ' (%s is above %s)' % (other, own))
            for banned in FORBIDDEN.get(own, ()):
                if name == banned or name.startswith(banned + '.'):
                    found.append(where + ' (forbidden to %s)' % own)
    return found


def test_every_layer_is_placed():
    layers = {p.stem for p in ROOT.iterdir()
              if p.suffix == '.py' or (p / '__init__.py').exists()}
    assert layers - LOWER - UPPER == set(), 'add it to LOWER or UPPER'
    assert LOWER & UPPER == set()


def test_no_upward_import():
    found = violations()
    assert not found, 'upward imports:\n' + '\n'.join(found)


def test_the_walk_finds_every_form(tmp_path):
    """A planted package: each form of import is reported, at its line."""
    pkg = tmp_path / 'reserve'
    for sub in ('db', 'plugins'):
        (pkg / sub).mkdir(parents=True)
        (pkg / sub / '__init__.py').write_text('')
    (pkg / '__init__.py').write_text('')
    (pkg / 'db' / 'bad.py').write_text(
        'import reserve.api.app\n'
        'from reserve import booking\n'
        'from reserve.devices import states\n'
        'from ..plugins import base\n'
        'from reserve.db import api\n'
        'from reserve import common, conf\n'
        'import os\n'
        'def f():\n'
        '    from reserve.manager import manager\n')
    (pkg / 'plugins' / 'bad.py').write_text(
        'from reserve.devices import lifecycle\n'
        'from reserve.devices.lifecycle import claim\n'
        'import reserve.devices.lifecycle as lc\n'
        'from reserve.devices import runs\n'
        'from reserve.api import app\n')
    assert [v.split(' (')[0] for v in violations(pkg)] == [
        'reserve/db/bad.py:1: db imports reserve.api.app',
        'reserve/db/bad.py:2: db imports reserve.booking',
        'reserve/db/bad.py:3: db imports reserve.devices.states',
        'reserve/db/bad.py:4: db imports reserve.plugins.base',
        'reserve/db/bad.py:9: db imports reserve.manager.manager',
        'reserve/plugins/bad.py:1: plugins imports reserve.devices.lifecycle',
        'reserve/plugins/bad.py:2: plugins imports '
        'reserve.devices.lifecycle.claim',
        'reserve/plugins/bad.py:3: plugins imports reserve.devices.lifecycle',
    ]

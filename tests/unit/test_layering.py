"""The layers of reserve/ form one order, and no import goes up it.

A module's layer is its first name under reserve/ (reserve/db/api.py is
in db). The order, lowest first, is the numbered list of the "Layers"
section of doc/source/contributor/architecture.rst, read from there:

* a module imports only its own layer and the layers before it; the two
  modules directly under reserve/ (ROOT_MODULES) come before them all;
* no loop between layers (which the order already rules out: checked on
  its own so that a loop is named as such);
* reserve/plugins/ never imports reserve.devices.lifecycle;
* nothing under reserve/ imports the test-support package reserve_fakes,
  which imports only reserve.virt and the layers before it.

Every layer must be in the list, and every layer listed must exist, so
that a new package is placed on purpose. Imports are read with ast at
any depth (inside functions too); what stevedore or importlib loads by
name is not seen.
"""
import ast
import collections
import pathlib
import re

import reserve

ROOT = pathlib.Path(reserve.__file__).parent
FAKES = ROOT.parent / 'reserve_fakes'
ARCHITECTURE = (pathlib.Path(__file__).resolve().parents[2] / 'doc' /
                'source' / 'contributor' / 'architecture.rst')
ROOT_MODULES = ('__init__', 'version')  # reserve/__init__.py, version.py
FAKES_PACKAGE = 'reserve_fakes'
FAKES_MAY_IMPORT = 'virt'  # and the layers before it
# lifecycle drives the manager's requests; the device:gpu plugin runs a
# reservation through reserve.devices.runs.
FORBIDDEN = {'plugins': ('reserve.devices.lifecycle',)}


def documented_order(text=None):
    """The layers of the architecture page's "Layers" list, lowest
    first."""
    text = ARCHITECTURE.read_text() if text is None else text
    section = re.search(r'^Layers\n=+\n(.*?)(?=^\S[^\n]*\n=+\n)', text,
                        re.M | re.S)
    assert section, 'no "Layers" section in %s' % ARCHITECTURE
    return re.findall(r'^#\. ``(\w+)``', section.group(1), re.M)


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


def _rank(order):
    rank = {name: -1 for name in ROOT_MODULES}
    rank.update((name, i) for i, name in enumerate(order))
    return rank


def violations(root=ROOT, order=None):
    order = documented_order() if order is None else order
    rank = _rank(order)
    found = []
    for path in sorted(root.rglob('*.py')):
        own = layer(module_name(path, root))
        for line, name in sorted(imports(path, root)):
            other = layer(name)
            where = '%s:%d: %s imports %s' % (
                path.relative_to(root.parent), line, own, name)
            if name.split('.')[0] == FAKES_PACKAGE:
                found.append(where + ' (test support)')
            elif (other is not None and other != own and
                    rank.get(other, len(order)) >= rank.get(own, -1)):
                found.append(where + ' (%s is not before %s)' % (other, own))
            for banned in FORBIDDEN.get(own, ()):
                if name == banned or name.startswith(banned + '.'):
                    found.append(where + ' (forbidden to %s)' % own)
    return found


def fakes_violations(fakes=FAKES, order=None):
    """Imports of reserve_fakes beyond reserve.virt and what is before
    it."""
    order = documented_order() if order is None else order
    rank = _rank(order)
    found = []
    for path in sorted(fakes.rglob('*.py')):
        for line, name in sorted(imports(path, fakes)):
            other = layer(name)
            if other is not None and (rank.get(other, len(order)) >
                                      rank[FAKES_MAY_IMPORT]):
                found.append('%s:%d: imports %s' % (
                    path.relative_to(fakes.parent), line, name))
    return found


def layer_graph(root=ROOT):
    """{layer: layers it imports}, itself left out."""
    graph = collections.defaultdict(set)
    for path in root.rglob('*.py'):
        own = layer(module_name(path, root))
        for _line, name in imports(path, root):
            other = layer(name)
            if other is not None and other != own:
                graph[own].add(other)
    return graph


def loops(graph):
    """Each loop of the graph once, as [a, b, ..., a], its lowest name
    first."""
    found = set()

    def walk(start, node, path):
        for nxt in sorted(graph.get(node, ())):
            if nxt == start:
                found.add(tuple(path + [start]))
            elif nxt > start and nxt not in path:
                walk(start, nxt, path + [nxt])

    for start in sorted(graph):
        walk(start, start, [start])
    return sorted(list(p) for p in found)


def test_every_layer_is_placed_once():
    order = documented_order()
    layers = {p.stem for p in ROOT.iterdir()
              if p.suffix == '.py' or (p / '__init__.py').exists()}
    assert len(order) == len(set(order)), 'a layer listed twice'
    assert layers - set(order) - set(ROOT_MODULES) == set(), (
        'add it to the "Layers" list of architecture.rst')
    assert set(order) - layers == set(), 'listed, but not under reserve/'


def test_no_import_goes_up_the_order():
    found = violations()
    assert not found, 'imports against the layers:\n' + '\n'.join(found)


def test_no_loop_between_layers():
    assert loops(layer_graph()) == []


def test_the_fakes_stand_on_virt_only():
    assert FAKES.is_dir()
    found = fakes_violations()
    assert not found, '\n'.join(found)


def test_the_order_is_read_from_the_page():
    text = ('Intro\n=====\n\n#. ``nope``\n\nLayers\n======\n\nText.\n\n'
            '#. ``conf``: options.\n#. ``db``: rows,\n   two lines.\n'
            'not a layer ``api``\n\nNext\n====\n\n#. ``api``\n')
    assert documented_order(text) == ['conf', 'db']
    assert documented_order()[:3] == ['conf', 'common', 'db']


def test_the_walk_finds_every_form(tmp_path):
    """A planted package: each form of import is reported, at its line."""
    pkg = tmp_path / 'reserve'
    for sub in ('db', 'plugins', 'api'):
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
        '    from reserve.manager import manager\n'
        'import reserve_fakes.libvirt_host\n'
        'import reserve\n')
    (pkg / 'plugins' / 'bad.py').write_text(
        'from reserve.devices import lifecycle\n'
        'from reserve.devices.lifecycle import claim\n'
        'import reserve.devices.lifecycle as lc\n'
        'from reserve.devices import runs\n'
        'from reserve.api import app\n'
        'from reserve.db import api\n'
        'from reserve_fakes import shared_host\n')
    order = ['conf', 'common', 'db', 'devices', 'plugins', 'api']
    assert [v.split(' (')[0] for v in violations(pkg, order)] == [
        'reserve/db/bad.py:1: db imports reserve.api.app',
        'reserve/db/bad.py:2: db imports reserve.booking',
        'reserve/db/bad.py:3: db imports reserve.devices.states',
        'reserve/db/bad.py:4: db imports reserve.plugins.base',
        'reserve/db/bad.py:9: db imports reserve.manager.manager',
        'reserve/db/bad.py:10: db imports reserve_fakes.libvirt_host',
        'reserve/plugins/bad.py:1: plugins imports reserve.devices.lifecycle',
        'reserve/plugins/bad.py:2: plugins imports '
        'reserve.devices.lifecycle.claim',
        'reserve/plugins/bad.py:3: plugins imports reserve.devices.lifecycle',
        'reserve/plugins/bad.py:5: plugins imports reserve.api.app',
        'reserve/plugins/bad.py:7: plugins imports reserve_fakes.shared_host',
    ]
    assert loops(layer_graph(pkg)) == [['db', 'plugins', 'db']]


def test_a_loop_is_found_whatever_its_length():
    graph = {'a': {'b'}, 'b': {'c'}, 'c': {'a', 'd'}, 'd': set(),
             'e': {'f'}, 'f': {'e'}}
    assert loops(graph) == [['a', 'b', 'c', 'a'], ['e', 'f', 'e']]
    assert loops({'a': {'b'}, 'b': set()}) == []


def test_the_fakes_walk(tmp_path):
    fakes = tmp_path / 'reserve_fakes'
    fakes.mkdir()
    (fakes / '__init__.py').write_text('')
    (fakes / 'host.py').write_text(
        'import libvirt\n'
        'from reserve.virt import hostdev\n'
        'from reserve.common import exception\n'
        'from reserve.devices import hosts\n'
        'from reserve_fakes import errors\n')
    order = ['conf', 'common', 'db', 'virt', 'devices']
    assert fakes_violations(fakes, order) == [
        'reserve_fakes/host.py:4: imports reserve.devices.hosts']

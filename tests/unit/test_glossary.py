"""Retired names stay retired.

doc/source/contributor/glossary.rst ends with a table of the names the
code no longer uses, each with the name that replaced it. A retired name
that comes back in reserve/ (as an identifier, a module's path or in a
string) fails here with its file and line, and the name to use instead.
The match is on whole words of identifiers, plural too:
``unit_reservation`` is found in ``unit_reservation_get`` and in
``old_unit_reservations``, not in ``unit_reservationist``.
"""
import io
import pathlib
import re
import tokenize

import reserve

ROOT = pathlib.Path(reserve.__file__).parent
GLOSSARY = ROOT.parent / 'doc' / 'source' / 'contributor' / 'glossary.rst'

# Public names that keep a retired word: the API spells them for the
# microversions before the one that renamed them, or another service
# spells them, or the word means something else there. Allowed in
# strings and comments (their literal, and text naming them), nowhere
# else.
PUBLIC = {
    'unit_reservations': 'device_reservations of GET /v1/limits before '
                         'microversion 1.2',
    'unit_hours': 'device_hours of GET /v1/limits before 1.2',
    'unit_ids': "a device reservation's device_ids before 1.2",
    'units': "a device reservation's devices before 1.2",
    'unit_id': "an attachment's device_id before 1.2",
    'units_unavailable': 'the error code reserve.units_unavailable',
    'min_unit': "placement's inventory field",
    'max_unit': "placement's inventory field",
    'tests/unit': 'the unit tests',
    'compute_flavor': "a reservation's reserved flavor in the API "
                      'before microversion 1.2',
}
_PUBLIC = re.compile(r'(?<![A-Za-z0-9_])(?:%s)(?![A-Za-z0-9_])' % '|'.join(
    re.escape(name) for name in PUBLIC))

_ROW = re.compile(r'^\s*\* - ``(?P<old>[^`]+)``\s*$')
_NEW = re.compile(r'^\s*- (?P<new>.+?)\s*$')


def retired(text):
    """{retired name: what replaced it} from the glossary's "Retired
    names" table."""
    _, found, table = text.partition('\nRetired names\n')
    assert found, 'the glossary has no "Retired names" section'
    names = {}
    old = None
    for line in table.splitlines():
        row = _ROW.match(line)
        if row:
            old = row.group('old')
            continue
        new = _NEW.match(line)
        if old and new:
            names[old] = new.group('new')
            old = None
    return names


def _pattern(name):
    # A name written with spaces in prose matches its snake_case and
    # CamelCase spellings too: "unit reservation" finds unit_reservation
    # and UnitReservation, and its words across a docstring's line break.
    words = name.replace('_', ' ').split()
    snake = r'_'.join(re.escape(w.lower()) for w in words)
    camel = ''.join(re.escape(w[:1].upper() + w[1:]) for w in words)
    spaced = r'(?:-|\s+)'.join(re.escape(w.lower()) for w in words)
    return re.compile(r'(?<![A-Za-z0-9])(?:%s|%s|%s)s?(?![a-z0-9])' % (
        snake, camel, spaced), re.IGNORECASE if ' ' in name else 0)


def occurrences(names, root=ROOT):
    """'file:line: name (use X)' for each retired name in the tree:
    in identifiers, strings, comments and module paths."""
    patterns = {name: _pattern(name) for name in names}
    found = []
    for path in sorted(root.rglob('*.py')):
        where = path.relative_to(root.parent)
        for name, pattern in patterns.items():
            if pattern.search(str(where.with_suffix(''))):
                found.append('%s: module path has %s (use %s)' % (
                    where, name, names[name]))
        source = path.read_text()
        for tok in tokenize.generate_tokens(io.StringIO(source).readline):
            if tok.type not in (tokenize.NAME, tokenize.STRING,
                                tokenize.COMMENT):
                continue
            text = tok.string
            if tok.type != tokenize.NAME:
                text = _PUBLIC.sub('', text)
            for name, pattern in patterns.items():
                if pattern.search(text):
                    found.append('%s:%d: %s (use %s)' % (
                        where, tok.start[0], name, names[name]))
    return found


def test_the_glossary_lists_retired_names():
    names = retired(GLOSSARY.read_text())
    assert names, 'no retired name in the glossary table'
    assert all(new for new in names.values())


def test_no_retired_name_in_reserve():
    found = occurrences(retired(GLOSSARY.read_text()))
    assert not found, 'retired names:\n' + '\n'.join(found)


def test_the_scan_finds_every_spelling(tmp_path):
    pkg = tmp_path / 'reserve'
    (pkg / 'db').mkdir(parents=True)
    (pkg / 'db' / 'unit_reservations.py').write_text('x = 1\n')
    (pkg / 'db' / 'fine.py').write_text(
        'class UnitReservation:\n'
        '    pass\n'
        'def unit_reservation_get():\n'
        '    """Read a unit reservation."""\n'
        'old_unit_reservations = 2\n'
        'unit_reservationist = 2  # not this one\n'
        'y = "start_date"\n'
        'start_dates = 3\n'
        'restart_date = 4  # nor this one\n'
        'z = """Cancel a unit\n    reservation."""\n')
    names = {'unit reservation': 'device reservation',
             'start_date': 'start'}
    assert occurrences(names, pkg) == [
        'reserve/db/fine.py:1: unit reservation (use device reservation)',
        'reserve/db/fine.py:3: unit reservation (use device reservation)',
        'reserve/db/fine.py:4: unit reservation (use device reservation)',
        'reserve/db/fine.py:5: unit reservation (use device reservation)',
        'reserve/db/fine.py:7: start_date (use start)',
        'reserve/db/fine.py:8: start_date (use start)',
        'reserve/db/fine.py:10: unit reservation (use device reservation)',
        'reserve/db/unit_reservations.py: module path has unit '
        'reservation (use device reservation)',
    ]


def test_a_public_name_is_allowed_in_strings_only(tmp_path):
    pkg = tmp_path / 'reserve'
    pkg.mkdir()
    (pkg / 'quota.py').write_text(
        'LIMIT = "unit_reservations"  # [quota]unit_reservations\n'
        'unit_reservations = 1\n'
        'x = "unit_reservations_left"\n')
    names = {'unit reservation': 'device reservation'}
    assert occurrences(names, pkg) == [
        'reserve/quota.py:2: unit reservation (use device reservation)',
        'reserve/quota.py:3: unit reservation (use device reservation)',
    ]


def test_the_table_is_read():
    text = ('Intro\n\nRetired names\n=============\n\n'
            '.. list-table::\n   :header-rows: 1\n\n'
            '   * - Retired\n     - Use\n'
            '   * - ``unit reservation``\n     - device reservation\n'
            '   * - ``claims_adopt``\n     - ``allocations_adopt``\n')
    assert retired(text) == {'unit reservation': 'device reservation',
                             'claims_adopt': '``allocations_adopt``'}

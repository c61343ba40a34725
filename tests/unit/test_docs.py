"""The documentation keeps up with the API."""
import pathlib
import re

from reserve.api import errors
from reserve.api import openapi

ROOT = pathlib.Path(__file__).resolve().parents[2]
DOC = ROOT / 'doc' / 'source'
API_REFERENCE = DOC / 'reference' / 'api.rst'


def _headings(path):
    """The ``METHOD /path`` titles of a reStructuredText file."""
    return set(re.findall(r'^``((?:GET|POST|PUT|PATCH|DELETE) /\S*)``$',
                          path.read_text(), re.M))


def test_the_api_reference_covers_every_operation():
    documented = _headings(API_REFERENCE)
    described = {'%s %s' % (method.upper(), path)
                 for path, item in openapi.document()['paths'].items()
                 for method in item}
    assert described - documented == set(), 'not in the API reference'
    assert documented - described == set(), 'not in the OpenAPI document'


def test_the_api_reference_lists_every_error_code():
    text = API_REFERENCE.read_text()
    for status, codes in openapi.error_codes().items():
        for code in codes:
            assert re.search(r'^%d +``%s``' % (status, re.escape(code)),
                             text, re.M), (status, code)
    assert set(errors.STATUS_CODES.values()) <= {
        c for codes in openapi.error_codes().values() for c in codes}


def test_the_guides_are_in_the_index_and_the_readme():
    index = (DOC / 'index.rst').read_text()
    for page in ('install/index', 'admin/index', 'cli/index',
                 'reference/api'):
        assert (DOC / (page + '.rst')).is_file(), page
        assert '   %s\n' % page in index, page
    readme = (ROOT / 'README.rst').read_text()
    for path in ('doc/source/install/index.rst',
                 'doc/source/admin/index.rst',
                 'doc/source/reference/api.rst'):
        assert path in readme, path

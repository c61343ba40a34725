"""etc/reserve/*.sample must be what the oslo generators produce now.

Regenerate with `tox -e genconfig` and `tox -e genpolicy` when an option or
a policy rule changes.
"""
import pathlib
import shutil
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]


def _tool(name):
    path = pathlib.Path(sys.executable).parent / name
    found = str(path) if path.exists() else shutil.which(name)
    if found is None:
        pytest.fail('%s is not installed' % name)
    return found


@pytest.mark.parametrize('tool, generator_conf, sample', [
    ('oslo-config-generator', 'etc/oslo-config-generator/reserve.conf',
     'etc/reserve/reserve.conf.sample'),
    ('oslopolicy-sample-generator', 'etc/oslo-policy-generator/reserve.conf',
     'etc/reserve/policy.yaml.sample'),
])
def test_sample_is_up_to_date(tool, generator_conf, sample, tmp_path):
    output = tmp_path / 'sample'
    subprocess.run([_tool(tool), '--config-file', generator_conf,
                    '--output-file', str(output)],
                   cwd=ROOT, check=True, capture_output=True)
    expected = output.read_text()
    committed = (ROOT / sample).read_text()
    assert committed == expected, (
        '%s is out of date: run `tox -e %s`' %
        (sample, 'genconfig' if 'config' in tool else 'genpolicy'))

"""The mail templates and drivers ship in the wheel.

pbr puts in the wheel the package files that git tracks: a template left
untracked would be missing from every install, and each mail of that
event would fail at rendering.
"""
import glob
import pathlib
import subprocess
import sys
import zipfile

import pytest

pytestmark = pytest.mark.integration
ROOT = pathlib.Path(__file__).resolve().parents[2]
EVENTS = ('allocated', 'start', 'before_end', 'end')


def test_wheel_has_the_templates_and_the_drivers(tmp_path):
    subprocess.run([sys.executable, '-m', 'pip', 'wheel', '--no-deps', '-q',
                    '-w', str(tmp_path), str(ROOT)], check=True,
                   capture_output=True, timeout=600)
    [wheel] = glob.glob(str(tmp_path / 'reserve-*.whl'))
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
        for event in EVENTS:
            template = 'reserve/notification/templates/%s.txt' % event
            assert template in names, '%s is not in the wheel' % template
            packaged = archive.read(template).decode()
            source = (ROOT / template).read_text()
            assert packaged == source
            assert packaged.startswith('Subject: ')
        [entry_points] = [n for n in names
                          if n.endswith('.dist-info/entry_points.txt')]
        text = archive.read(entry_points).decode()
    assert '[reserve.notification.email_drivers]' in text
    assert 'log = reserve.notification.mail.drivers:LogDriver' in text
    assert 'smtp = reserve.notification.mail.drivers:SMTPDriver' in text

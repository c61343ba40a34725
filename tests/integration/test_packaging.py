"""A plain (non-editable) install finds its migrations from any directory:
`pip install .`, then `reserve-manage db sync` run elsewhere."""
import glob
import os
import pathlib
import site
import subprocess
import sys
import sysconfig

import pytest

from tests.fixtures import backends

pytestmark = pytest.mark.integration
ROOT = pathlib.Path(__file__).resolve().parents[2]


def _run(*args, **kwargs):
    return subprocess.run(args, check=True, capture_output=True, text=True,
                          timeout=600, **kwargs)


def test_wheel_install_syncs_the_database(tmp_path):
    wheels = tmp_path / 'wheels'
    _run(sys.executable, '-m', 'pip', 'wheel', '--no-deps', '-q',
         '-w', str(wheels), str(ROOT))
    wheel = glob.glob(str(wheels / 'reserve-*.whl'))[0]

    # A new environment whose only reserve is the wheel; the dependencies
    # come from this one (a .pth file), so nothing is downloaded.
    env = tmp_path / 'env'
    _run(sys.executable, '-m', 'venv', str(env))
    env_site = _run(str(env / 'bin' / 'python'), '-c',
                    'import sysconfig; print(sysconfig.get_path("purelib"))'
                    ).stdout.strip()
    deps = [p for p in site.getsitepackages() +
            [sysconfig.get_path('purelib')] if 'site-packages' in p]
    pathlib.Path(env_site, 'deps.pth').write_text('\n'.join(deps) + '\n')
    # --ignore-installed: the editable reserve seen through deps.pth may
    # carry the same version.
    _run(str(env / 'bin' / 'pip'), 'install', '-q', '--no-deps',
         '--ignore-installed', wheel)

    workdir = tmp_path / 'elsewhere'
    workdir.mkdir()
    with backends.throwaway_database('sqlite', tmp_path) as url:
        conf = workdir / 'reserve.conf'
        conf.write_text('[database]\nconnection = %s\n' % url)
        clean_env = {k: v for k, v in os.environ.items()
                     if k != 'PYTHONPATH'}
        where = _run(str(env / 'bin' / 'python'), '-c',
                     'import reserve, os; print(reserve.__file__)',
                     cwd=workdir, env=clean_env).stdout
        assert where.startswith(env_site), where
        out = _run(str(env / 'bin' / 'reserve-manage'), '--config-file',
                   str(conf), 'db', 'sync', cwd=workdir, env=clean_env)
        assert 'Database is at revision' in out.stdout
        version = _run(str(env / 'bin' / 'reserve-manage'), '--config-file',
                       str(conf), 'db', 'version', cwd=workdir,
                       env=clean_env).stdout.strip()
        assert version and version != 'None'

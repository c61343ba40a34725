"""Every folder of Python modules under reserve/ and reserve_fakes/ is a
regular package, or an installed wheel would leave it out (pbr ships
packages with an __init__.py); setup.cfg ships both."""
import configparser
import pathlib

import reserve

ROOT = pathlib.Path(reserve.__file__).parent
TOP = ROOT.parent
PACKAGES = ('reserve', 'reserve_fakes')


def test_every_module_folder_has_an_init():
    missing = sorted(
        str(folder.relative_to(TOP))
        for top in PACKAGES
        for folder in [TOP / top] + [p for p in (TOP / top).rglob('*')
                                     if p.is_dir()]
        if any(folder.glob('*.py')) and not (folder / '__init__.py').exists())
    assert missing == []


def test_setup_ships_reserve_and_its_fakes():
    setup = configparser.ConfigParser()
    setup.read(TOP / 'setup.cfg')
    assert setup['files']['packages'].split() == list(PACKAGES)

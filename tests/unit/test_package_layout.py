"""Every folder of Python modules under reserve/ is a regular package, or
an installed wheel would leave it out (pbr ships packages with an
__init__.py)."""
import pathlib

import reserve

ROOT = pathlib.Path(reserve.__file__).parent


def test_every_module_folder_has_an_init():
    missing = sorted(
        str(folder.relative_to(ROOT.parent))
        for folder in [ROOT] + [p for p in ROOT.rglob('*') if p.is_dir()]
        if any(folder.glob('*.py')) and not (folder / '__init__.py').exists())
    assert missing == []

"""The e-mail templates, one per booking event (data, read with
importlib.resources); a package so that setuptools ships it as one."""

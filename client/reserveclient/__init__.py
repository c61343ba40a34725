"""The ``openstack reserve`` commands and a client of the reserve API."""
import pbr.version

__version__ = pbr.version.VersionInfo('python-reserveclient').version_string()

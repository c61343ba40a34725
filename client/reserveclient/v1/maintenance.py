"""The maintenance windows of the reserve API."""
from reserveclient.v1 import base
from reserveclient.v1 import httpclient


class MaintenanceWindowManager(base.Manager):
    """/v1/maintenance-windows: times no booking may overlap."""

    path = '/v1/maintenance-windows'
    key = 'maintenance_window'
    collection_key = 'maintenance_windows'
    what = 'maintenance window'

    def create(self, **values):
        return self._create(httpclient.compact(values))

    def update(self, window_id, **values):
        return self._update(window_id, values)

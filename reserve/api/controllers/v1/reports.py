"""/v1/reports: what the cloud delivered (from microversion 1.3).

``GET /v1/reports/delivery?start=&end=``: the reservations whose window
starts in [start, end) (the last 30 days when neither is given), summed
per catalogue flavor, and device reservations apart: time from start to
usable, hosts replaced, repairs made, missing instance-minutes and
servers nova has not deleted at their end.
"""
import datetime

import pecan
from pecan import rest

from reserve.api.controllers.v1 import method
from reserve.api.controllers.v1 import utils
from reserve.api import microversion
from reserve.api.views import deliveries as views
from reserve.common.policies import reports as policies
from reserve.common import timeutils
from reserve.db import deliveries as deliveries_db

DEFAULT_DAYS = 30
# The reports under /v1/reports.
WORDS = ('delivery',)


class DeliveryReportController(rest.RestController):

    @method.expose(policy=policies.DELIVERY, params=('start', 'end'))
    def get_all(self, *, ctx, params):
        window = utils.query_window(params)
        if window is None:
            end = timeutils.utcnow()
            window = (end - datetime.timedelta(days=DEFAULT_DAYS), end)
        rows = deliveries_db.delivery_list(ctx, *window)
        return views.report_view(rows, *window)


class ReportsController(rest.RestController):

    @pecan.expose()
    def _lookup(self, name, *remainder):
        if not microversion.serves(microversion.PLAYBOOK) or \
                name not in WORDS:
            pecan.abort(404)
        return DeliveryReportController(), remainder

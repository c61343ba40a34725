"""Diagnoses: each layer of a reservation read live, and the doctor.

They exist from microversion 1.3 of the API; these calls ask for it
whatever version the client speaks otherwise.
"""
from reserveclient.v1 import httpclient

VERSION = '1.3'
PATH = '/v1/diagnoses'
SUBRESOURCE = 'diagnosis'


def diagnose(http, item_path):
    """The diagnosis of the reservation at ``item_path``."""
    return http.get('%s/%s' % (item_path, SUBRESOURCE),
                    version=VERSION)['diagnosis']


class DiagnosisManager:
    """/v1/diagnoses: every live reservation diagnosed (administrators)."""

    def __init__(self, http):
        self.http = http

    def doctor(self, kind=None):
        """{checked, reservations: [the diagnoses with a mismatch]};
        kind: 'reservation' or 'device_reservation' (default both)."""
        return self.http.get(PATH, httpclient.compact({'kind': kind}),
                             version=VERSION)

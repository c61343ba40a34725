"""openstack reserve reservation diagnose / device reservation diagnose /
doctor (API microversion 1.3)."""
import json

from cliff import columns
from osc_lib.command import command

from reserveclient.osc.v1 import base

KINDS = ('reservation', 'device_reservation')


def _compact(value):
    return json.dumps(value, sort_keys=True, separators=(', ', ': '))


class JsonColumn(columns.FormattableColumn):
    """A layer's expected or found, as compact JSON in a table."""

    def human_readable(self):
        return _compact(self._value)

    def machine_readable(self):
        return self._value


class ProblemsColumn(columns.FormattableColumn):
    """A layer's problems, one a line: symptom (who repairs): problem."""

    def human_readable(self):
        return '\n'.join('%s (%s): %s' % (p.get('symptom'), p.get('repair'),
                                          p.get('problem'))
                         for p in self._value or [])

    def machine_readable(self):
        return [dict(p) for p in self._value or []]


def mismatch_lines(mismatch):
    if not mismatch:
        return ['No mismatch: every layer holds what it should.']
    return ['First mismatch: %s layer, %s: %s' % (
                mismatch.get('layer'), mismatch.get('symptom'),
                mismatch.get('problem')),
            'Repair (%s): %s' % (mismatch.get('repair'),
                                 mismatch.get('action'))]


class _Diagnose(base.ReserveCommand, command.Lister):
    """The layers of one reservation, read live, and the first mismatch."""

    what = None

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        parser.add_argument('reservation', metavar='<%s>' % self.what,
                            help='ID of the %s' % self.what)
        return parser

    def diagnose(self, client, reservation_id):
        raise NotImplementedError

    def take_action(self, parsed_args):
        self._diagnosis = self.diagnose(base.reserve_client(self),
                                        parsed_args.reservation)
        rows = [(layer.get('layer'), layer.get('ok'),
                 JsonColumn(layer.get('expected')),
                 JsonColumn(layer.get('found')),
                 ProblemsColumn(layer.get('problems')))
                for layer in self._diagnosis.get('layers') or []]
        return ('Layer', 'OK', 'Expected', 'Found', 'Problems'), rows

    def produce_output(self, parsed_args, column_names, data):
        if parsed_args.formatter == 'json':
            # The whole diagnosis, as the API gives it.
            self.app.stdout.write(json.dumps(self._diagnosis, indent=4,
                                             sort_keys=True) + '\n')
            return 0
        result = super().produce_output(parsed_args, column_names, data)
        if parsed_args.formatter == 'table':
            self.app.stdout.write(
                '\n'.join(mismatch_lines(self._diagnosis.get('mismatch')))
                + '\n')
        return result


class DiagnoseReservation(_Diagnose):
    """Diagnose a reservation: booking, lease, events, flavor, aggregate,
    providers, servers and hosts, each read live."""

    what = 'reservation'

    def diagnose(self, client, reservation_id):
        return client.reservations.diagnose(reservation_id)


class DiagnoseDeviceReservation(_Diagnose):
    """Diagnose a device reservation: reservation, lease, events, its
    libvirt host and the hostdevs of its domains, each read live."""

    what = 'device reservation'

    def diagnose(self, client, reservation_id):
        return client.device_reservations.diagnose(reservation_id)


class Doctor(base.ReserveCommand, command.Lister):
    """Diagnose every live reservation and list those with a mismatch
    (admin)."""

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        parser.add_argument(
            '--kind', metavar='<kind>', choices=KINDS,
            help='Only reservations of this kind (%s)' % ', '.join(KINDS))
        return parser

    def take_action(self, parsed_args):
        report = base.reserve_client(self).diagnoses.doctor(
            kind=parsed_args.kind)
        self._checked = report.get('checked')
        rows = []
        for diagnosis in report.get('reservations') or []:
            mismatch = diagnosis.get('mismatch') or {}
            rows.append((diagnosis.get('reservation_id'),
                         diagnosis.get('kind'), mismatch.get('layer'),
                         mismatch.get('symptom'), mismatch.get('problem'),
                         mismatch.get('action')))
        return ('ID', 'Kind', 'Layer', 'Symptom', 'Problem', 'Action'), rows

    def produce_output(self, parsed_args, column_names, data):
        result = super().produce_output(parsed_args, column_names, data)
        if parsed_args.formatter == 'table':
            self.app.stdout.write('Checked %s reservations.\n' %
                                  self._checked)
        return result

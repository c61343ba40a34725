"""schemathesis over /v1/openapi.json: every operation, as a member and as
an administrator, with no server error.

The document the API serves is loaded from the WSGI stack of the
``gpu_api`` fixture (the real lease manager behind the fake transport, a
libvirt test:/// host) and every operation it describes is fuzzed in
process, with requests built from its parameters and request body
schemas: valid ones and, as often, ones that break the schemas. Part of
the cases name real resources (a catalogue flavor, a nova and a GPU host,
a booking, its lease and allocation, maintenance windows, a device and a
device reservation) so that they reach beyond the 404 of an unknown ID.
Deletions run last, so that they do not take the seeded resources away
from the other operations.

Each answer must not be a server error, and its status, content type,
body and headers must be ones its operation documents. The run is
bounded (schemathesis' coverage cases and a few random examples per
operation) and derandomized, so that it is the same run in CI every
time; a failure lists every request that failed, with its curl line.
"""
import itertools
import time

# Before schemathesis, which retunes Hypothesis for the whole process.
from tests.functional.hostile import hypothesis_tuning  # noqa: I100

from hypothesis import core as hypothesis_core
from hypothesis import given
from hypothesis import HealthCheck
from hypothesis import Phase
from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.vendor import pretty
import pytest
import schemathesis
from schemathesis import checks as st_checks
from schemathesis.core import failures as st_failures
from schemathesis.generation import drivers
from schemathesis.generation import feedback
from schemathesis.generation import GenerationMode
from schemathesis.generation import hypothesis as schemathesis_hypothesis
from schemathesis.generation import overrides

from reserve.api import openapi
from tests.functional.api_fixtures import ADMIN
from tests.functional.api_fixtures import future
from tests.functional.api_fixtures import make_booking
from tests.functional.api_fixtures import make_flavor
from tests.functional.api_fixtures import make_lease
from tests.functional.api_fixtures import roomy_host
from tests.functional.devices.reservations import A100
from tests.functional.devices.reservations import create
from tests.functional.hostile.http import PERSONAS

hypothesis_tuning.keep_hypothesis(schemathesis_hypothesis.setup)

# Examples per operation and generation mode (valid, schema-breaking).
EXAMPLES = 20
# No server error; the status, content type, body and headers of each
# answer as its operation documents them. (Not the checks on rejected
# and accepted input: without keystone no X-Auth-Token is required.)
CHECKS = [st_checks.not_a_server_error,
          st_checks.status_code_conformance,
          st_checks.content_type_conformance,
          st_checks.response_schema_conformance,
          st_checks.response_headers_conformance]


def seed(gpu_api, a100):
    """Real resources of every kind. Returns {path parameter: [known
    values]} and {operation: [valid bodies on them]}."""
    app = gpu_api.app
    flavor = make_flavor('gpu.a100')
    make_flavor('private.a100', is_public=False, projects=['project-a'])
    host = roomy_host()
    booking = make_booking(project='project-a')
    lease = make_lease(project='project-a', host=host)
    window = app.post_json('/v1/maintenance-windows', {
        'start': future(200), 'end': future(210), 'flavors': ['gpu.a100']},
        headers=ADMIN).json['maintenance_window']
    host_window = app.post_json(
        '/v1/hosts/%s/maintenance-windows' % host.id,
        {'start': future(300), 'end': future(310)},
        headers=ADMIN).json['maintenance_window']
    device = gpu_api.device(a100, '0000:17:00.0')
    devices = create(gpu_api, {'count': 1, 'model': A100}).json[
        'device_reservation']
    allocation = app.get('/v1/allocations', {'lease_id': lease.id},
                         headers=ADMIN).json['allocations'][0]
    params = {
        'reservation_id': [booking.id],
        'lease_id': [lease.id],
        'allocation_id': [allocation['id']],
        'host_ref': [host.id, a100['name']],
        'domain_name': ['gpu-vm-1'],
        'window_id': [window['id'], host_window['id']],
        'flavor_ref': [flavor.id, 'private.a100'],
        'project_id': ['project-a'],
        'device_id': [device],
        'device_reservation_id': [devices['id']],
    }
    bodies = {
        'POST /v1/reservations': [{'flavor_id': 'gpu.a100',
                                   'start': future(48), 'end': future(72),
                                   'instance_count': 1}],
        'PATCH /v1/reservations/{reservation_id}': [{'end': future(80)}],
        'POST /v1/hosts': [{'name': 'gpu2.example.org'},
                           {'name': 'box-2', 'uri': a100['uri']}],
        'PATCH /v1/hosts/{host_ref}': [
            {'reservable': False, 'force': True},
            {'capabilities': {'gpu_model': 'a100'}}],
        'POST /v1/hosts/{host_ref}/maintenance-windows': [
            {'start': future(400), 'end': future(410), 'force': True}],
        'POST /v1/flavors': [{'name': 'new.a100', 'nova_flavor_id': 'a100',
                              'slots': 2}],
        'PATCH /v1/flavors/{flavor_ref}': [
            {'slots': 5, 'start': future(1), 'end': future(500)}],
        'POST /v1/flavors/{flavor_ref}/projects': [
            {'project_id': 'project-b'}],
        'POST /v1/maintenance-windows': [
            {'start': future(500), 'end': future(510), 'all_flavors': True}],
        'PATCH /v1/maintenance-windows/{window_id}': [{'end': future(520)}],
        'POST /v1/device-reservations': [
            {'count': 1, 'model': A100, 'start': future(24),
             'end': future(48)},
            {'unit_ids': [device], 'domains': ['gpu-vm-1']}],
        'PATCH /v1/device-reservations/{device_reservation_id}': [
            {'end': future(100)}, {'domains': ['gpu-vm-1']}],
        'POST /v1/device-reservations/{device_reservation_id}/attach': [
            {'domain': 'gpu-vm-1'}],
        'POST /v1/device-reservations/{device_reservation_id}/detach': [
            {'domain': 'gpu-vm-1'}],
    }
    return params, bodies


def _path_names(operation):
    return [p.name for p in operation.path_parameters]


def strategy(operation, known):
    """Valid and schema-breaking cases, half of them on known IDs."""
    names = _path_names(operation)
    fixed = [dict(zip(names, values)) for values in
             itertools.product(*(known.get(n, []) for n in names))]
    if not names or not fixed:
        fixed = [None]
    strategies = []
    for mode in (GenerationMode.POSITIVE, GenerationMode.NEGATIVE):
        for path_parameters in fixed:
            strategies.append(operation.as_strategy(
                mode, path_parameters=path_parameters))
        if names:
            strategies.append(operation.as_strategy(mode))
    return st.one_of(strategies)


def _on_seed(case, seeds, data):
    """Half the time, the body becomes one of the operation's valid
    ``seeds`` with some of the generated fields laid over it."""
    if not seeds or not data.draw(st.booleans(), label='on a seed'):
        return
    body = dict(data.draw(st.sampled_from(seeds), label='seed'))
    if isinstance(case.body, dict):
        keep = data.draw(st.sets(st.sampled_from(sorted(case.body)))
                         if case.body else st.just(set()), label='keep')
        body.update((name, case.body[name]) for name in keep)
    case.body = body


def send(case, headers, failures):
    try:
        response = case.call(headers=headers)
        case.validate_response(response, checks=CHECKS)
    # Every failure, not only the first.
    except (Exception, st_failures.FailureGroup) as exc:
        failures.append('%s %s: %s' % (case.method, case.formatted_path,
                                       exc))


def cover(operation, params, headers, failures):
    """schemathesis' coverage cases of one operation (each parameter and
    body field at its bounds, missing, of another type...); every other
    one on known IDs. Returns how many ran."""
    names = _path_names(operation)
    generator = drivers.CoverageGenerator(
        operation=operation,
        generation_modes=[GenerationMode.POSITIVE, GenerationMode.NEGATIVE],
        generation_config=operation.schema.config.generation_for(
            operation=operation, phase='coverage'),
        auth_storage=None, override=overrides.Override(),
        feedback=feedback.FeedbackSources())
    ran = 0
    for ran, case in enumerate(generator, 1):
        if ran % 2 and all(name in params for name in names):
            case.path_parameters = dict(
                case.path_parameters,
                **{name: params[name][ran // 2 % len(params[name])]
                   for name in names})
        send(case, headers, failures)
    return ran


def fuzz(operation, params, seeds, headers, failures):
    """Run the random examples of one operation; returns how many ran."""
    ran = []

    @settings(max_examples=EXAMPLES * 2, derandomize=True, deadline=None,
              database=None, phases=[Phase.explicit, Phase.generate],
              suppress_health_check=list(HealthCheck))
    @given(case=strategy(operation, params), data=st.data())
    def run(case, data):
        if operation.body:
            _on_seed(case, seeds, data)
        ran.append(case)
        send(case, headers, failures)

    run()
    return len(ran)


def _order(operation):
    # Deletions last, so that the seeded resources stay for the others.
    return (operation.method.upper() == 'DELETE', operation.label)


def _from_loopback(application):
    """The application as a caller on loopback reaches it (the noauth
    guard answers any other peer, or none, with 403)."""
    def called(environ, start_response):
        environ.setdefault('REMOTE_ADDR', '127.0.0.1')
        return application(environ, start_response)
    return called


@pytest.mark.parametrize('who', ['member_a', 'admin'])
def test_no_server_error(gpu_api, a100, who):
    params, bodies = seed(gpu_api, a100)
    # Loaded as served; from_dict, as from_wsgi would leave the document's
    # own operation out.
    schema = schemathesis.openapi.from_dict(
        gpu_api.app.get(openapi.PATH).json)
    schema.app = _from_loopback(gpu_api.app.app)
    operations = sorted((result.ok() for result in
                         schema.get_all_operations()), key=_order)
    failures = []
    started = time.monotonic()
    headers = PERSONAS[who]
    examples = 0
    with hypothesis_tuning.schemathesis_tuned():
        for operation in operations:
            examples += cover(operation, params, headers, failures)
            examples += fuzz(operation, params, bodies.get(operation.label),
                             headers, failures)
    print('%s: %d operations, %d examples, %d failures, %.1fs' % (
        who, len(operations), examples, len(failures),
        time.monotonic() - started))
    assert not failures, '%d failures; the first ones:\n\n%s' % (
        len(failures), '\n\n'.join(failures[:20]))


def test_the_other_tests_keep_hypothesis_as_it_is():
    # A falsifying example of another module's property test is printed
    # as Hypothesis prints it; schemathesis' printer is the suite's only.
    assert hypothesis_core.RepresentationPrinter is \
        pretty.RepresentationPrinter
    with hypothesis_tuning.schemathesis_tuned():
        assert hypothesis_core.RepresentationPrinter is not \
            pretty.RepresentationPrinter
    assert hypothesis_core.RepresentationPrinter is \
        pretty.RepresentationPrinter

"""reserve-all-in-one as a process under ordinary use: clients reserving
GPU devices for a domain and cancelling them in a loop, one at a time and
several at once (tests/benchmarks/bench_embedded_loops.py is the long
version). Every request gets an answer that is not a 5xx, and once the
loop settles every reservation is released, no lease event is in ERROR
and no hostdev is left in a domain."""
import pytest

from tests.benchmarks import bench_embedded_loops as loops


@pytest.fixture
def all_in_one(tmp_path):
    aio = loops.AllInOne(str(tmp_path))
    try:
        aio.wait_up()
        yield aio
    finally:
        aio.stop()


@pytest.mark.parametrize('clients', [1, 8])
def test_devices_reserved_and_cancelled_in_a_loop_get_no_5xx(all_in_one,
                                                             clients):
    before = loops.hostdevs(all_in_one.url)
    loop = loops.Loop(all_in_one.url)
    loop.run(24, clients)
    unreleased, failed, _, after = loops.settle(all_in_one.url,
                                                loop.created, 60)
    answers = dict(loop.answers)
    # A 409 is a proper refusal: the four A100s are all held then.
    assert set(answers) <= {'POST 201', 'POST 409', 'DELETE 204'}, answers
    assert answers['POST 201'] == answers['DELETE 204'] > 0, answers
    assert unreleased == []
    assert failed == []
    assert after == before

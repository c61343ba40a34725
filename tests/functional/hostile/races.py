"""Requests sent at the same instant, for the race tests."""
import threading


def together(*requests):
    """Send the requests (callables) at the same moment from threads of
    their own; returns their answers in order."""
    barrier = threading.Barrier(len(requests))
    answers = [None] * len(requests)

    def send(i, request):
        barrier.wait()
        answers[i] = request()

    threads = [threading.Thread(target=send, args=(i, r))
               for i, r in enumerate(requests)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    return answers

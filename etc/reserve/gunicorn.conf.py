# gunicorn settings of reserve-api (etc/systemd/reserve-api.service):
#   gunicorn --config /etc/reserve/gunicorn.conf.py reserve.wsgi.api:application
# Command-line options given after --config win over these.
#
# reserve bounds request bodies itself ([api] max_body_bytes, answered 413
# before authentication, chunked or not); gunicorn bounds what it parses
# before the application runs: the request line and the headers.

bind = '127.0.0.1:8785'
workers = 4
threads = 4
timeout = 60
accesslog = '-'

# Longest request line (method, path and query string), in bytes.
limit_request_line = 8190
# Most header fields in a request.
limit_request_fields = 100
# Longest header field (name and value), in bytes; a keystone token
# (X-Auth-Token, X-Service-Token) is far below.
limit_request_field_size = 16384

# /metrics under several workers: with PROMETHEUS_MULTIPROC_DIR set
# (etc/systemd/reserve-api.service: an empty directory, wiped at each
# start), each worker writes its counters and histograms there and a
# scrape sums them all. A worker that exits leaves its counts, which
# stay in the sums; what only a live worker may report goes with it.


def child_exit(server, worker):
    import os
    if os.environ.get('PROMETHEUS_MULTIPROC_DIR'):
        from prometheus_client import multiprocess
        multiprocess.mark_process_dead(worker.pid)

"""What reserve-api exports at /metrics (reserve.api.metrics serves it).

Two kinds of figures:

* read from the database (``collector``), one scrape ahead
  (``ahead``, unless [metrics] read_ahead is off): the
  catalogue's capacity now (``catalogue``), bookings, device
  reservations and GPU devices by state (``states``), the lateness of
  lease events and the repairs (``events``, ``repairs``). The manager
  and the worker run in other processes, often on other machines: what
  they did reaches the API through the shared database, never through
  files of theirs, and a scrape's figures are one scrape old at most;
* counted by the API process itself (``instruments``): request latency,
  RPC and database failures. Under gunicorn, with
  PROMETHEUS_MULTIPROC_DIR set, each worker writes them to its own files
  there and a scrape sums every worker's (``exposition``).
"""

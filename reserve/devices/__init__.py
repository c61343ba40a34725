"""GPU devices of libvirt hosts, and their reservations.

The manager owns the libvirt connections (``hosts``), discovers each
host's GPUs into device rows (``inventory``, ``refresh``), selects devices
for a request (``selection``, pure; ``holds`` feeds it a snapshot, for
a dry run or under the capacity lock for a hold), plans which device goes
to which domain (``plan``, pure), attaches and detaches with every step
undone on failure (``attachments``), and runs each reservation's life:
what its lease runs through the ``device:gpu`` plugin (``runs``: hold,
start, end) and what the manager is asked (``lifecycle``).
``embedded`` enrolls the all-in-one's test:/// hosts.
"""

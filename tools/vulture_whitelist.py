"""Names in reserve/ that look unused to the dead-code check
(tools/check-code.sh) but are called from outside the code: by a
framework, a library, an entry point or the tests. Each entry says who
uses it. This file is only parsed, never run.

A new entry needs the same: who calls it. Code that nothing calls is
removed instead, and a helper only the tests call lives in tests/.
"""
# The attribute accesses below stand for "something calls this name".
_ = object()

# pecan routes requests to these controller methods by name.
_.index_get
_.index_head
_.get_all
_.get_one
_.post
_.patch
_._lookup
# pecan calls a hook's on_error when a controller raises.
_.on_error
# webob's Response.location: the Location header of a 201.
_.location

# The API casts share_lease by name (reserve.api.controllers.v1.utils
# cast); oslo.messaging hands it to the worker's endpoint by name.
_.share_lease

# reserve.api.openapi gathers each schema module's parts by name.
response_schemas
request_bodies

# cheroot reads these from its server and connection (reserve.cmd.api).
RequestHandlerClass
_.max_request_header_size
_.ConnectionClass

# kombu calls a transport's drain_events (reserve.common.memory_bus).
_.drain_events
# oslo.messaging calls a serializer's (de)serialize_context.
_.serialize_context
_.deserialize_context
# oslo.messaging notification endpoints: the listener filters on it.
filter_rule
# The API casts promote_standby by name (controllers/v1/utils.py cast),
# and oslo.messaging calls the worker's endpoint method of that name.
_.promote_standby
# cotyledon calls a service's terminate when the process stops.
_.terminate

# setup.cfg entry points: oslo.policy.enforcer, the resource plugins
# (reserve.resource.plugins) and the mail drivers
# (reserve.notification.email_drivers), loaded by stevedore.
get_enforcer
FlavorInstancePlugin
DeviceGpuPlugin
LogDriver
SMTPDriver
# The lease engine calls every plugin's on_start, before_end and on_end
# (reserve.manager.events).
_.on_start
_.before_end
_.on_end
# pbr's version of the package, read by packaging tools.
version_info

# SQLAlchemy calls these event listeners and compilers (reserve.db.api,
# reserve.db.functions); inherit_cache marks a construct cacheable.
_sqlite_pragmas
_mysql_connect_parameters
_json_reader
_sqlite_begin
_seconds_since
_seconds_since_mysql
_seconds_since_sqlite
_narrow
_narrow_mysql
_hours_started
_hours_started_mysql
_hours_started_sqlite
_.inherit_cache
# A column written by the capacity refresh, for operators reading the
# table (when the capacity was last read).
capacity_read_at

# The test-support libvirt implements libvirt's own method names, which
# the code under test calls through a libvirt connection.
_.attachDevice
_.detachDevice
_.numOfCaps

# Parts of a value's shape that the tests read: whether a domain runs,
# libvirt's error code behind a VirtError.
_.running
_.libvirt_code
# A domain's fields reach the API through dataclasses.asdict
# (reserve.devices.refresh), which vulture does not follow.
_.persistent
# Driving the lease engine one step at a time (the tests' clock): the
# event loop's synchronous tick.
_.tick
# The inverse of fence_host (giving a host back to on-demand boots):
# sync undoes the fence through the same step; the tests give their
# hosts back with it.
unfence_host
# kombu reads a transport's default_connection_params (the in-memory
# bus names no host); SQLAlchemy calls the engine_connect listener that
# pools SQLite connections; pecan.util reads _getargspec, which
# reserve.api.pecan_argspec replaces.
_.default_connection_params
_sqlite_pool
_._getargspec

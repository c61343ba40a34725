"""SQL functions each backend spells its own way."""
import sqlalchemy as sa
from sqlalchemy.ext import compiler as sa_compiler
from sqlalchemy.sql import functions as sa_functions


class SecondsSince(sa_functions.FunctionElement):
    """Whole seconds from ``earlier`` to ``later`` (datetimes), as an
    integer; each backend spells it its own way. The database keeps
    dates to the second, so nothing is lost, and the calendar sorts
    small integers instead of dates (MariaDB sorts those much faster)."""
    type = sa.Integer()
    name = 'seconds_since'
    inherit_cache = True


@sa_compiler.compiles(SecondsSince)
def _seconds_since(element, compiler, **kw):
    later, earlier = (compiler.process(c, **kw) for c in element.clauses)
    return 'CAST(EXTRACT(EPOCH FROM (%s - %s)) AS BIGINT)' % (later,
                                                              earlier)


@sa_compiler.compiles(SecondsSince, 'mysql')
def _seconds_since_mysql(element, compiler, **kw):
    later, earlier = (compiler.process(c, **kw) for c in element.clauses)
    return 'TIMESTAMPDIFF(SECOND, %s, %s)' % (earlier, later)


@sa_compiler.compiles(SecondsSince, 'sqlite')
def _seconds_since_sqlite(element, compiler, **kw):
    later, earlier = (compiler.process(c, **kw) for c in element.clauses)
    return ("(CAST(strftime('%%s', %s) AS INTEGER) - "
            "CAST(strftime('%%s', %s) AS INTEGER))" % (later, earlier))


class Narrow(sa_functions.FunctionElement):
    """An id (a UUID: ASCII only) to group and sort by. MariaDB copies
    the rows it sorts into temporary tables at the widest size of their
    character set, four bytes a character in utf8mb4: in ASCII the rows
    are a quarter as wide, and a window over the whole catalogue's
    bookings runs more than twice as fast. Other backends need nothing.
    """
    type = sa.String()
    name = 'narrow'
    inherit_cache = True


@sa_compiler.compiles(Narrow)
def _narrow(element, compiler, **kw):
    return compiler.process(element.clauses, **kw)


@sa_compiler.compiles(Narrow, 'mysql')
def _narrow_mysql(element, compiler, **kw):
    column = compiler.process(element.clauses, **kw)
    return 'CONVERT(%s USING ascii)' % column


class HoursStarted(sa_functions.FunctionElement):
    """Started hours from ``earlier`` to ``later`` (datetimes to the
    second): the quota's instance-hours of one booking, per instance."""
    type = sa.Integer()
    name = 'hours_started'
    inherit_cache = True


@sa_compiler.compiles(HoursStarted)
def _hours_started(element, compiler, **kw):
    later, earlier = element.clauses
    seconds = compiler.process(SecondsSince(later, earlier), **kw)
    return 'CAST(CEIL(%s / 3600.0) AS BIGINT)' % seconds


@sa_compiler.compiles(HoursStarted, 'mysql')
def _hours_started_mysql(element, compiler, **kw):
    later, earlier = element.clauses
    seconds = compiler.process(SecondsSince(later, earlier), **kw)
    return 'CEILING(%s / 3600)' % seconds


@sa_compiler.compiles(HoursStarted, 'sqlite')
def _hours_started_sqlite(element, compiler, **kw):
    # Integers divide to an integer; seconds are never negative here.
    later, earlier = element.clauses
    seconds = compiler.process(SecondsSince(later, earlier), **kw)
    return '((%s + 3599) / 3600)' % seconds


# MariaDB turns an IN list of 1,000 values or more into a join with a
# temporary table, which it reads once per row the query makes (twice per
# booking in desk.peak_loads) instead of testing each row against a
# sorted list: shorter lists, OR-ed, keep it a test on the row. (On
# SQLite, OR-ed lists cost an index search each: one list there.)
IN_LIST = 500


def in_list_chunks(values, dialect):
    """``values`` cut into the IN lists ``dialect`` takes in one go."""
    if dialect != 'mysql':
        return [values]
    return [values[i:i + IN_LIST] for i in range(0, len(values), IN_LIST)]

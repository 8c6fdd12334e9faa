"""The time zones the API accepts: the IANA names of the tz database this server reads.

One list for the schemas (an `enum`) and for the server (which refuses what the list leaves
out), so that the two cannot disagree. `localtime` and `posixrules` are files of the system's
zoneinfo folder, not IANA names: `zoneinfo` may list them, the API does not.
"""

from __future__ import annotations

import datetime
import functools
import re
import zoneinfo

NOT_IANA = frozenset({"localtime", "posixrules"})


@functools.cache
def timezones() -> tuple[str, ...]:
    return tuple(sorted(zoneinfo.available_timezones() - NOT_IANA))


@functools.cache
def _known() -> frozenset[str]:
    return frozenset(timezones())


def is_timezone(name: object) -> bool:
    return isinstance(name, str) and name in _known()


def enum_varname(name: str) -> str:
    """A constant name for `x-enum-varnames`: generators turn the names themselves into
    identifiers by dropping punctuation, which folds `Etc/GMT+1` and `Etc/GMT-1` into one."""
    name = re.sub(r"-(?=\d)", "_MINUS_", name.replace("+", "_PLUS_"))
    return re.sub(r"[^A-Za-z0-9]+", "_", name).strip("_").upper()


def rfc3339_local(value: datetime.datetime) -> str:
    """`value` with its own zone's offset (a period that starts at the reader's midnight), or in
    UTC where that offset is not whole minutes: before standard time an offset is local mean
    time with seconds (-04:21:40 in Salta until 1894), which RFC 3339 cannot write."""
    offset = value.utcoffset()
    if offset is not None and offset.total_seconds() % 60:
        return value.astimezone(datetime.UTC).isoformat().replace("+00:00", "Z")
    return value.isoformat()

"""JSON bodies that cannot reach a 500 (issue 9).

The standard parser lets through what PostgreSQL, the renderer or a recursive check later
chokes on: a body nested thousands deep (RecursionError), a lone UTF-16 surrogate
(`"\\ud800"`, unencodable), and `1e400` or `Infinity` (not storable in jsonb). This parser
refuses all of them as a 400 in the family's format, before any view code runs, so a batch
is refused whole rather than half-applied.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping
from typing import IO, Any, NoReturn

from django.conf import settings
from rest_framework.exceptions import ParseError
from rest_framework.parsers import JSONParser

#: deepest nesting a whole body may have (free-form fields are capped lower, see
#: apps.core.serializers.FreeFormField)
MAX_BODY_DEPTH = 32
_SURROGATE = re.compile("[\ud800-\udfff]")


def _refuse_constant(name: str) -> NoReturn:
    raise ValueError(f"{name} is not a JSON number")


def _finite_float(text: str) -> float:
    value = float(text)
    if math.isinf(value):
        raise ValueError(f"number out of range: {text[:40]}")
    return value


def check_tree(data: object, *, max_depth: int) -> str | None:
    """Why `data` is unacceptable (too deep, a lone surrogate), or None. Iterative: no
    recursion however deep the value."""
    stack = [(data, 1)]
    while stack:
        value, depth = stack.pop()
        if isinstance(value, str):
            if _SURROGATE.search(value):
                return "a string contains a lone UTF-16 surrogate (invalid Unicode)"
        elif isinstance(value, dict | list):
            if depth > max_depth:
                return f"nested deeper than {max_depth} levels"
            if isinstance(value, dict):
                for key, item in value.items():
                    if _SURROGATE.search(key):
                        return "a key contains a lone UTF-16 surrogate (invalid Unicode)"
                    stack.append((item, depth + 1))
            else:
                stack.extend((item, depth + 1) for item in value)
        elif isinstance(value, float) and not math.isfinite(value):
            return "a number is out of range"
    return None


def parse_json_bytes(body: bytes, *, max_depth: int = MAX_BODY_DEPTH, refuse_nul: bool = False) -> Any:
    """A JSON document as the API's parser reads it (UTF-8, no NaN/Infinity, no out-of-range
    numbers, no lone surrogates, nested at most `max_depth` deep, parsed without recursion
    errors), for bodies read outside DRF (inbound webhooks). `refuse_nul`: a NUL character
    in a string or key, which PostgreSQL's jsonb cannot store, is refused too. Raises
    ValueError saying why."""
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError:
        raise ValueError("the body is not valid UTF-8") from None
    try:
        data = json.loads(text, parse_constant=_refuse_constant, parse_float=_finite_float)
    except RecursionError:
        raise ValueError(f"JSON nested deeper than {max_depth} levels") from None
    except ValueError as exc:
        raise ValueError(f"invalid JSON: {str(exc)[:200]}") from None
    problem = check_tree(data, max_depth=max_depth)
    if problem:
        raise ValueError(f"JSON {problem}")
    if refuse_nul and _has_nul(data):
        raise ValueError("JSON string contains a NUL character")
    return data


def _has_nul(data: object) -> bool:
    stack = [data]
    while stack:
        value = stack.pop()
        if isinstance(value, str):
            if "\x00" in value:
                return True
        elif isinstance(value, dict):
            stack.extend(value.keys())
            stack.extend(value.values())
        elif isinstance(value, list):
            stack.extend(value)
    return False


class SafeJSONParser(JSONParser):
    def parse(
        self, stream: IO[Any], media_type: str | None = None, parser_context: Mapping[str, Any] | None = None
    ) -> Any:  # any JSON value: an array or a scalar too, not only the object the stub names
        encoding = (parser_context or {}).get("encoding", settings.DEFAULT_CHARSET)
        try:
            text = stream.read().decode(encoding)
        except UnicodeDecodeError:
            raise ParseError("the body is not valid UTF-8.") from None
        try:
            data = json.loads(text, parse_constant=_refuse_constant, parse_float=_finite_float)
        except RecursionError:
            raise ParseError(f"JSON nested deeper than {MAX_BODY_DEPTH} levels.") from None
        except ValueError as exc:  # JSONDecodeError, out-of-range numbers, huge integers
            raise ParseError(f"invalid JSON: {str(exc)[:200]}") from None
        problem = check_tree(data, max_depth=MAX_BODY_DEPTH)
        if problem:
            raise ParseError(f"JSON {problem}.")
        return data

"""Brand scoping (issue 32): a member or API key limited to some brands sees and acts on those
brands' rows only.

The family views set the caller's brands for the request (``brands_limited``); every read through
``OrgQuerySet.for_organization`` then also narrows by brand, through the model's
``brand_scope_paths``: the lookups that lead to its brand (any of them), ``()`` for rows that
belong to the whole organization and are hidden from a brand-limited caller (webhook endpoints,
which carry every brand's events), and no attribute at all for rows every member shares (tags,
campaigns). Tasks, the admin and the services' own reads run outside a request: unlimited.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from contextvars import ContextVar
from typing import Any

from django.db.models import Q

_LIMIT: ContextVar[frozenset[str] | None] = ContextVar("postforge_brand_limit", default=None)


def current_brands() -> frozenset[str] | None:
    """The brand ids the current request is limited to (None: no limit)."""
    return _LIMIT.get()


def limit_brands(brand_ids: frozenset[str] | None) -> object:
    """Limit what follows to these brands (None or empty: no limit); returns the token to reset."""
    return _LIMIT.set(frozenset(brand_ids) if brand_ids else None)


def unlimit(token: object) -> None:
    with contextlib.suppress(ValueError, RuntimeError):  # set in another context: nothing to undo
        _LIMIT.reset(token)  # type: ignore[arg-type]


@contextlib.contextmanager
def brands_limited(brand_ids: frozenset[str] | None) -> Iterator[None]:
    token = limit_brands(brand_ids)
    try:
        yield
    finally:
        unlimit(token)


def brand_filter(model: type[Any]) -> Q | None:
    """The filter a brand-limited request adds to ``model``'s rows (None: nothing to add)."""
    brands = _LIMIT.get()
    if not brands:
        return None
    paths = getattr(model, "brand_scope_paths", None)
    if paths is None:
        return None
    if not paths:
        return Q(pk__in=[])
    found = Q()
    for path in paths:
        found |= Q(**{f"{path}__in": list(brands)})
    return found

"""Every routed viewset of both API families names its app's policy, and a resource served by
both families asks the same Policy object (so a role or scope rule is written once)."""

from __future__ import annotations

import importlib
import re
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path

import pytest
from django.urls import URLPattern, URLResolver, get_resolver

from apps.core.policy import Policy

FAMILIES = {"v1": "config.urls_v1", "api": "config.urls_api"}
APPS_DIR = Path(__file__).resolve().parents[2] / "apps"


def _walk(patterns, prefix: str = "") -> Iterator[tuple[str, type]]:
    for pattern in patterns:
        if isinstance(pattern, URLResolver):
            yield from _walk(pattern.url_patterns, prefix + str(pattern.pattern))
        elif isinstance(pattern, URLPattern):
            cls = getattr(pattern.callback, "cls", None)
            assert cls is not None, f"{prefix}{pattern.pattern}: not a viewset"
            yield prefix + str(pattern.pattern), cls


def _path(route: str) -> str:
    """One spelling for both URLconfs' routes: `brands/{}/settings`."""
    route = route.replace("^", "").replace("$", "")
    return re.sub(r"\(\?P<\w+>[^)]*\)|<(?:\w+:)?\w+>", "{}", route)


ROUTES = {
    family: sorted(set(_walk(get_resolver(conf).url_patterns)), key=lambda rv: (rv[0], rv[1].__qualname__))
    for family, conf in FAMILIES.items()
}


def _policies() -> dict[int, str]:
    """Every Policy object in an `apps.<app>.permissions` module, by identity -> its name."""
    found: dict[int, str] = {}
    for module_file in sorted(APPS_DIR.glob("*/permissions.py")):
        name = f"apps.{module_file.parent.name}.permissions"
        module = importlib.import_module(name)
        for attr, value in vars(module).items():
            if isinstance(value, Policy):
                found[id(value)] = f"{name}.{attr}"
    return found


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_every_routed_viewset_names_a_policy_from_a_permissions_module(family):
    assert ROUTES[family], f"no routes in {FAMILIES[family]}"
    policies = _policies()
    for route, view in ROUTES[family]:
        policy = getattr(view, "policy", None)
        assert isinstance(policy, Policy), f"{family} {route}: {view.__qualname__} names no policy"
        assert id(policy) in policies, (
            f"{family} {route}: {view.__qualname__}'s policy is not one of apps/<app>/permissions.py"
        )


def test_no_view_sets_role_or_scope_attributes_of_its_own():
    for family in FAMILIES:
        for route, view in ROUTES[family]:
            own = {
                attr
                for klass in view.__mro__
                if not klass.__module__.startswith("apps.core.") and klass is not object
                for attr in ("read_role", "write_role", "action_roles", "scope", "read_scope")
                if attr in vars(klass)
            }
            assert not own, f"{family} {route}: {view.__qualname__} sets {sorted(own)}; name a policy"


def test_both_families_views_of_one_resource_share_one_policy_object():
    by_resource: defaultdict[str, set[tuple[str, type]]] = defaultdict(set)
    for family in FAMILIES:
        for route, view in ROUTES[family]:
            by_resource["path " + _path(route)].add((family, view))
            app = view.__module__.split(".")[1]
            by_resource[f"view {app}.{view.__name__}"].add((family, view))
    shared = {key: views for key, views in by_resource.items() if {f for f, _ in views} == set(FAMILIES)}
    assert len(shared) >= 10  # content, brands, profiles, analytics, webhooks, redirect origins...
    for key, views in shared.items():
        policies = {id(view.policy) for _, view in views}
        assert len(policies) == 1, f"{key}: {sorted(v.__module__ + '.' + v.__name__ for _, v in views)}"

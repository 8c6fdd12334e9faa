"""Untrusted input that used to reach a 500 is a 400 in the family's format (issue 9).

Targeted cases first (each failed on the main of the time), then a property-based test
that feeds the same shapes to every write and list operation of both OpenAPI schemas.
"""

from __future__ import annotations

import base64
import json
import uuid

import orjson
import pytest
from hypothesis import HealthCheck, given
from hypothesis import settings as hsettings
from hypothesis import strategies as st

from apps.brands.models import Brand
from apps.content.models import Content
from apps.core import ratelimit
from tests.content.factories import make_content
from tests.factories import ProfileFactory

pytestmark = pytest.mark.django_db

SURROGATE_VALUE = '{"metadata": {"a": "\\ud800"}}'
SURROGATE_KEY = '{"metadata": {"\\udfff": 1}}'


def deep(n: int) -> str:
    return "[" * n + "]" * n


def deep_object(n: int) -> str:
    return '{"a":' * n + "1" + "}" * n


def assert_family(response, family: str, status: int = 400):
    assert response.status_code == status, (response.status_code, response.content[:300])
    assert response["Content-Type"].startswith("application/json")
    body = response.json()
    if family == "v1":
        assert body["error"]["code"] and body["error"]["message"]
    else:
        assert isinstance(body["error"], str) and body["error"]
    return body


@pytest.mark.parametrize(
    "raw",
    [
        deep(50_000),
        '{"name": "b", "metadata": ' + deep_object(900) + "}",
        SURROGATE_VALUE,
        SURROGATE_KEY,
        '{"name": "b", "settings": {"x": "\\ud800"}}',
        '{"name": "b", "metadata": {"n": 1e400}}',
        '{"name": "b", "metadata": {"n": -Infinity}}',
        '{"name": "b", "metadata": {"n": NaN}}',
    ],
)
def test_hostile_bodies_are_400_in_both_families(owner, raw):
    v1 = owner.client().generic("POST", "/v1/brands", raw, content_type="application/json")
    assert_family(v1, "v1")
    api = owner.client().generic("POST", "/api/brands", raw, content_type="application/json")
    assert_family(api, "api")


def test_free_form_fields_are_capped_in_size_and_depth(owner):
    client = owner.client()
    too_deep = client.generic(
        "POST",
        "/api/brands",
        '{"name": "b", "metadata": ' + deep_object(11) + "}",
        content_type="application/json",
    )
    assert "metadata" in assert_family(too_deep, "api")["details"]
    too_big = client.post("/api/brands", {"name": "b", "metadata": {"blob": "x" * 70_000}}, format="json")
    assert "metadata" in assert_family(too_big, "api")["details"]
    fine = client.post("/api/brands", {"name": "ok", "metadata": {"a": {"b": [1, 2.5, "é"]}}}, format="json")
    assert fine.status_code == 201, fine.content


@pytest.mark.parametrize("path", ["/v1/content", "/api/content", "/api/profiles", "/v1/brands"])
def test_nul_in_search_is_400(owner, path):
    for param in ("q", "search"):
        response = owner.client().get(path, {param: "a\x00b"})
        assert_family(response, "v1" if path.startswith("/v1") else "api")


def _cursor(value) -> str:
    return base64.urlsafe_b64encode(orjson.dumps([value, str(uuid.uuid4())])).decode().rstrip("=")


@pytest.mark.parametrize("value", ["not a date", 12345, True, {"a": 1}, "99999-01-01T00:00:00Z", [1], 1e300])
def test_tampered_cursor_is_400(owner, value):
    make_content(owner.org)
    response = owner.client().get("/v1/content", {"cursor": _cursor(value)})
    body = assert_family(response, "v1")
    assert "cursor" in body["error"]["details"]


def test_a_real_cursor_still_pages(owner):
    for _ in range(3):
        make_content(owner.org)
    first = owner.client().get("/v1/content", {"cursor": "", "limit": 2}).json()
    cursor = first["pagination"]["nextCursor"]
    second = owner.client().get("/v1/content", {"cursor": cursor, "limit": 2})
    assert second.status_code == 200 and len(second.json()["data"]) == 1


def test_a_batch_with_a_lone_surrogate_changes_nothing_and_answers_json(owner):
    first, second = make_content(owner.org), make_content(owner.org)
    raw = json.dumps(
        {
            "operations": [
                {"method": "delete", "id": f"cnt_{first.pk.hex}"},
                {
                    "method": "update",
                    "id": f"cnt_{second.pk.hex}",
                    "data": {"content": {"instagram": {"caption": "CAPTION"}}},
                },
            ]
        }
    ).replace("CAPTION", "\\ud800")
    response = owner.client().generic("POST", "/v1/content/batch", raw, content_type="application/json")
    assert_family(response, "v1")
    assert Content.objects.filter(pk__in=[first.pk, second.pk]).count() == 2  # the delete did not run


# --- property-based: every write and list operation of both families ------------------------


HOSTILE_VALUES = {
    "surrogate": '"\\ud800"',
    "surrogate_key": '{"\\udbff": "x"}',
    "inf": "1e400",
    "neg_inf": "-1e999",
    "nan": "NaN",
    "deep_900": deep_object(900),
    "nul": '"a\\u0000b"',
    "nul_key": '{"a\\u0000": 1}',
    "huge_int": "9" * 5000,
}
WHOLE_BODIES = [deep(50_000), deep_object(5_000), '"\\ud800"', "1e400"]
QUERY_SHAPES = [
    {"q": "a\x00b"},
    {"search": "\x00"},
    {"cursor": _cursor("not a date")},
    {"cursor": _cursor(7)},
    {"cursor": _cursor(True)},
    {"cursor": _cursor({"x": 1})},
    {"cursor": _cursor("99999-12-31T00:00:00Z")},
    {"cursor": "%%%"},
    {"limit": "1e400"},
    {"page": "\x00"},
    {"date_from": "99999-01-01"},
]


def _schema_operations(client):
    """(family, method, path template, body property names) for each write and list operation."""
    ops = []
    for family, url in (("v1", "/v1/schema/"), ("api", "/api/schema/")):
        schema = client.get(url, HTTP_ACCEPT="application/vnd.oai.openapi+json").json()
        base = schema["servers"][0]["url"]  # paths are relative to the family's base path
        for relative, item in schema["paths"].items():
            path = base + relative
            for method, op in item.items():
                if method not in ("get", "post", "put", "patch"):
                    continue
                if method == "get" and path.rstrip("/").endswith("}"):
                    continue  # a detail read, not a list
                props = []
                body = (
                    (op.get("requestBody") or {})
                    .get("content", {})
                    .get("application/json", {})
                    .get("schema", {})
                )
                ref = body.get("$ref")
                if ref:
                    body = schema["components"]["schemas"][ref.rsplit("/", 1)[-1]]
                props = sorted(body.get("properties", {})) or ["data"]
                ops.append((family, method.upper(), path, props))
    return ops


KIND_BY_SEGMENT = {
    "content": "content",
    "brands": "brand",
    "profiles": "profile",
    "media": "media",
    "tags": "tag",
}


def _fill(path: str, objects: dict) -> str:
    parts = path.split("/")
    for i, part in enumerate(parts):
        if part.startswith("{"):
            kind = KIND_BY_SEGMENT.get(parts[i - 1])
            parts[i] = str(objects.get(kind) or uuid.uuid4())
    return "/".join(parts)


@pytest.mark.django_db(transaction=True)
def test_hostile_shapes_never_reach_a_500_on_any_write_or_list_operation(owner, settings):
    settings.RATE_LIMIT_DEFAULT = settings.RATE_LIMIT_GENERATION = settings.RATE_LIMIT_BATCH = 10**6
    ratelimit.reset_local()
    brand = Brand.objects.get(organization=owner.org, is_default=True)
    profile = ProfileFactory(organization=owner.org, brand=brand, sandbox=True)
    content = make_content(owner.org, status="review", profile=profile)
    objects = {
        "brand": brand.pk,
        "profile": profile.pk,
        "content": content.pk,
        "media": content.media_assets.first().pk,
    }
    client = owner.client()
    ops = _schema_operations(client)
    writes = [op for op in ops if op[1] != "GET"]
    lists = [op for op in ops if op[1] == "GET"]
    assert len(writes) > 30 and len(lists) > 10, (len(writes), len(lists))
    seen = []

    def check(response, family, what):
        assert response.status_code < 500, (what, response.status_code, response.content[:300])
        if response.status_code >= 400 and response.status_code != 405:
            assert response["Content-Type"].startswith("application/json"), what
            body = response.json()
            assert ("error" in body) and (
                isinstance(body["error"], dict) if family == "v1" else isinstance(body["error"], str)
            ), what

    @hsettings(
        max_examples=250,
        deadline=None,
        database=None,
        suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
    )
    @given(
        op=st.sampled_from(writes),
        shape=st.sampled_from(sorted(HOSTILE_VALUES)),
        whole=st.sampled_from([None, *WHOLE_BODIES]),
        pick=st.integers(min_value=0, max_value=50),
    )
    def writes_hold(op, shape, whole, pick):
        family, method, path, props = op
        field = props[pick % len(props)]
        raw = whole if whole is not None else "{" + json.dumps(field) + ": " + HOSTILE_VALUES[shape] + "}"
        url = _fill(path, objects)
        response = client.generic(method, url, raw, content_type="application/json")
        seen.append(response.status_code)
        check(response, family, (method, url, field, shape, (whole or "")[:20]))

    @hsettings(
        max_examples=120,
        deadline=None,
        database=None,
        suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
    )
    @given(op=st.sampled_from(lists), query=st.sampled_from(QUERY_SHAPES))
    def lists_hold(op, query):
        family, _, path, _ = op
        url = _fill(path, objects)
        response = client.get(url, query)
        check(response, family, (url, query))

    writes_hold()
    lists_hold()
    assert seen.count(400) + seen.count(422) > len(seen) // 2  # the shapes were refused, not ignored

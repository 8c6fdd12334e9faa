"""apps/core/pagination.py pinned at its boundaries with literal values (issue 24): limits and
pages at and past their bounds, the exact pagination objects of both families, cursors (the
encoding, tampering, every kind of sort value), the keyset walk over ties and empty values in
both directions, and the families' pagination classes."""

from __future__ import annotations

import base64
import datetime
import uuid

import orjson
import pytest
from django.db.models import Q
from django.utils import timezone

from apps.core import pagination as pg
from apps.core.errors import ValidationFailed
from apps.profiles.models import SocialProfile
from tests.factories import OrganizationFactory, ProfileFactory

pytestmark = pytest.mark.django_db


def _fails(fn, *args, **kwargs) -> tuple[str, dict]:
    with pytest.raises(ValidationFailed) as caught:
        fn(*args, **kwargs)
    return caught.value.message, caught.value.details


# --- numbers --------------------------------------------------------------------------------


def test_the_bounds_are_these():
    assert (pg.DEFAULT_LIMIT, pg.MAX_LIMIT, pg.MAX_PAGE, pg.MAX_OFFSET) == (20, 100, 1_000_000, 10_000_000)


@pytest.mark.parametrize(("raw", "value"), [(None, 20), ("1", 1), ("20", 20), ("99", 99), ("100", 100)])
def test_limit_within_its_bounds(raw, value):
    assert pg.parse_limit({} if raw is None else {"limit": raw}) == value


@pytest.mark.parametrize("raw", ["0", "101", "-1", "1000"])
def test_limit_outside_its_bounds_names_them(raw):
    assert _fails(pg.parse_limit, {"limit": raw}) == (
        "'limit' must be between 1 and 100.",
        {"limit": ["Must be between 1 and 100."]},
    )


@pytest.mark.parametrize("raw", ["", "abc", "1.5", " ", "1e3"])
def test_limit_that_is_not_an_integer(raw):
    assert _fails(pg.parse_limit, {"limit": raw}) == (
        "'limit' must be an integer.",
        {"limit": ["Must be an integer."]},
    )


def test_int_param_without_a_maximum_says_at_least():
    assert pg._int_param({"n": "5"}, "n", 7, minimum=5) == 5
    assert pg._int_param({}, "n", 7, minimum=5) == 7
    assert pg._int_param({"n": "123456789"}, "n", 7, minimum=5) == 123456789
    assert _fails(pg._int_param, {"n": "4"}, "n", 7, minimum=5) == (
        "'n' must be at least 5.",
        {"n": ["Must be at least 5."]},
    )
    assert pg._int_param({"n": "9"}, "n", 7, minimum=5, maximum=9) == 9
    assert (
        _fails(pg._int_param, {"n": "10"}, "n", 7, minimum=5, maximum=9)[0] == "'n' must be between 5 and 9."
    )


# --- cursors -------------------------------------------------------------------------------


def test_a_cursor_is_unpadded_urlsafe_base64_of_json():
    raw = pg._encode_cursor(["2026-01-02T03:04:05+00:00", "0123abcd-4567-89ef-0123-456789abcdef"])
    assert raw == base64.urlsafe_b64encode(
        b'["2026-01-02T03:04:05+00:00","0123abcd-4567-89ef-0123-456789abcdef"]'
    ).decode().rstrip("=")
    assert "=" not in raw
    assert pg._decode_cursor(raw) == ["2026-01-02T03:04:05+00:00", "0123abcd-4567-89ef-0123-456789abcdef"]
    assert pg._encode_cursor([None, "x"]) == "W251bGwsIngiXQ"
    assert pg._decode_cursor("W251bGwsIngiXQ") == [None, "x"]
    # every padding length decodes
    for values in ([1, "a"], [12, "ab"], [123, "abc"], ["é", "🎉"]):
        assert pg._decode_cursor(pg._encode_cursor(values)) == values


@pytest.mark.parametrize(
    "raw",
    [
        "!!!",
        "a",
        base64.urlsafe_b64encode(b"{}").decode(),
        base64.urlsafe_b64encode(b"[1]").decode(),
        base64.urlsafe_b64encode(b"[1,2,3]").decode(),
        base64.urlsafe_b64encode(b'"ab"').decode(),
        base64.urlsafe_b64encode(b"not json").decode(),
        base64.urlsafe_b64encode(b"\xff\xfe").decode(),
    ],
)
def test_a_cursor_that_is_not_ours_is_a_400(raw):
    assert _fails(pg._decode_cursor, raw) == (
        "Invalid cursor.",
        {"cursor": ["Not a cursor this API returned."]},
    )


def test_cursor_values_take_the_sort_fields_type():
    qs = SocialProfile.objects.all()
    when = pg._cursor_value(qs, "connected_at", "2026-01-02T03:04:05+00:00")
    assert when == datetime.datetime(2026, 1, 2, 3, 4, 5, tzinfo=datetime.UTC)
    assert pg._cursor_value(qs, "follower_count", 12) == 12
    assert pg._cursor_value(qs, "follower_count", "12") == 12
    assert pg._cursor_value(qs, "username", "bob") == "bob"
    assert pg._cursor_value(qs, "connected_at", None) is None


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("follower_count", True),  # a bool is not a number here
        ("follower_count", [1]),
        ("follower_count", {"a": 1}),
        ("follower_count", "twelve"),
        ("connected_at", 12),  # a date sent as a number
        ("connected_at", 1.5),
        ("connected_at", "yesterday"),
        ("connected_at", ""),  # to_python reads it as empty
    ],
)
def test_a_tampered_cursor_value_is_a_400(field, value):
    msg, details = _fails(pg._cursor_value, SocialProfile.objects.all(), field, value)
    assert msg == "Invalid cursor."
    assert details == {"cursor": ["Not a cursor this API returned."]}


# --- the keyset condition ----------------------------------------------------------------------

LAST = uuid.UUID("0123abcd-4567-89ef-0123-456789abcdef")


def test_after_a_value_descending():
    q = pg._after("n", "desc", 5, LAST, nullable=False)
    assert q == Q(n__lte=5) & (Q(n__lt=5) | (Q(n=5) & Q(pk__lt=LAST)))


def test_after_a_value_ascending():
    q = pg._after("n", "asc", 5, LAST, nullable=False)
    assert q == Q(n__gte=5) & (Q(n__gt=5) | (Q(n=5) & Q(pk__gt=LAST)))


def test_after_a_value_ascending_on_a_nullable_field_the_empty_ones_follow():
    q = pg._after("n", "asc", 5, LAST, nullable=True)
    assert q == (Q(n__gte=5) & (Q(n__gt=5) | (Q(n=5) & Q(pk__gt=LAST)))) | Q(n__isnull=True)
    # descending, the empty ones came first: nothing to add
    assert pg._after("n", "desc", 5, LAST, nullable=True) == pg._after("n", "desc", 5, LAST, nullable=False)


def test_after_an_empty_value():
    assert pg._after("n", "desc", None, LAST, nullable=True) == (
        (Q(n__isnull=True) & Q(pk__lt=LAST)) | Q(n__isnull=False)
    )
    assert pg._after("n", "asc", None, LAST, nullable=True) == Q(n__isnull=True) & Q(pk__gt=LAST)


# --- both families over real rows ------------------------------------------------------------


@pytest.fixture
def profiles():
    """Seven profiles: follower counts 10, 20, 20, 20, 30, 40, 50; connected_at empty on two."""
    org = OrganizationFactory()
    base = timezone.now().replace(microsecond=0)
    rows = []
    for i, count in enumerate([10, 20, 20, 20, 30, 40, 50]):
        connected = None if i in (1, 4) else base - datetime.timedelta(days=i)
        rows.append(ProfileFactory(organization=org, follower_count=count, connected_at=connected))
    return org, rows


def _walk(qs, ordering, limit):
    """Every page of a keyset walk: the pks and the pagination objects."""
    seen, pages, cursor = [], [], ""
    while True:
        page = pg.paginate_v1(qs, {"cursor": cursor, "limit": str(limit)}, ordering=ordering)
        seen += [p.pk for p in page.items]
        pages.append(page.pagination)
        if not page.pagination["hasMore"]:
            return seen, pages
        cursor = page.pagination["nextCursor"]


@pytest.mark.parametrize("direction", ["asc", "desc"])
@pytest.mark.parametrize("field", ["follower_count", "connected_at"])
@pytest.mark.parametrize("limit", [1, 2, 3, 7, 8])
def test_a_keyset_walk_visits_every_row_once_in_order(profiles, field, direction, limit):
    _org, _rows = profiles
    base = SocialProfile.objects.order_by("pk")
    expected = [p.pk for p in pg.order_for_paging(SocialProfile.objects.all(), field, direction)]
    seen, pages = _walk(base, (field, direction), limit)
    assert seen == expected
    assert len(seen) == 7
    # every page but the last is full, and says so
    assert [p["hasMore"] for p in pages] == [True] * (len(pages) - 1) + [False]
    assert all(p["limit"] == limit for p in pages)
    assert pages[-1]["nextCursor"] is None
    assert len(pages) == -(-7 // limit)  # ceil(7 / limit)


def test_the_order_puts_empty_values_last_ascending_and_first_descending(profiles):
    asc = list(pg.order_for_paging(SocialProfile.objects.all(), "connected_at", "asc"))
    desc = list(pg.order_for_paging(SocialProfile.objects.all(), "connected_at", "desc"))
    assert [p.connected_at is None for p in asc] == [False] * 5 + [True] * 2
    assert [p.connected_at is None for p in desc] == [True] * 2 + [False] * 5
    # ties break on the primary key in the same direction
    ties = [p for p in pg.order_for_paging(SocialProfile.objects.all(), "follower_count", "asc")][1:4]
    assert [p.pk for p in ties] == sorted(p.pk for p in ties)
    ties_desc = [p for p in pg.order_for_paging(SocialProfile.objects.all(), "follower_count", "desc")][3:6]
    assert [p.pk for p in ties_desc] == sorted((p.pk for p in ties_desc), reverse=True)
    # a field that is not a column (an annotation's name) sorts as given
    assert pg._nullable(SocialProfile.objects.all(), "no_such_field") is False
    assert pg._nullable(SocialProfile.objects.all(), "connected_at") is True
    assert pg._nullable(SocialProfile.objects.all(), "follower_count") is False


def test_the_first_keyset_page_and_its_cursor(profiles):
    qs = SocialProfile.objects.order_by("pk")
    page = pg.paginate_v1(qs, {"cursor": "", "limit": "2"}, ordering=("follower_count", "desc"))
    assert [p.follower_count for p in page.items] == [50, 40]
    assert page.pagination == {
        "limit": 2,
        "nextCursor": pg._encode_cursor([40, str(page.items[1].pk)]),
        "hasMore": True,
    }
    dated = pg.paginate_v1(qs, {"cursor": "", "limit": "1"}, ordering=("connected_at", "asc"))
    first = dated.items[0]
    assert pg._decode_cursor(dated.pagination["nextCursor"]) == [
        first.connected_at.isoformat(),
        str(first.pk),
    ]


def test_a_cursor_whose_id_is_not_a_uuid_is_a_400(profiles):
    qs = SocialProfile.objects.order_by("pk")
    for last in ("nope", "", "12"):
        cursor = pg._encode_cursor([20, last])
        assert _fails(pg.paginate_v1, qs, {"cursor": cursor}, ordering=("follower_count", "asc")) == (
            "Invalid cursor.",
            {"cursor": ["Not a cursor this API returned."]},
        )


def test_family_a_pages(profiles):
    qs = SocialProfile.objects.order_by("follower_count", "pk")
    counts = lambda page: [p.follower_count for p in page.items]  # noqa: E731
    first = pg.paginate_v1(qs, {"limit": "3"}, ordering=("follower_count", "asc"))
    assert counts(first) == [10, 20, 20]
    assert first.pagination == {"page": 1, "limit": 3, "total": 7, "pages": 3}
    third = pg.paginate_v1(qs, {"limit": "3", "page": "3"}, ordering=("follower_count", "asc"))
    assert counts(third) == [50]
    assert third.pagination == {"page": 3, "limit": 3, "total": 7, "pages": 3}
    past = pg.paginate_v1(qs, {"limit": "3", "page": "4"}, ordering=("follower_count", "asc"))
    assert past.items == []
    assert past.pagination == {"page": 4, "limit": 3, "total": 7, "pages": 3}
    whole = pg.paginate_v1(qs, {"limit": "7"}, ordering=("follower_count", "asc"))
    assert whole.pagination["pages"] == 1 and len(whole.items) == 7
    assert pg.paginate_v1(qs, {}, ordering=("follower_count", "asc")).pagination == {
        "page": 1,
        "limit": 20,
        "total": 7,
        "pages": 1,
    }
    assert pg.paginate_v1(qs, {"page": "1000000"}, ordering=("x", "asc")).items == []
    assert _fails(pg.paginate_v1, qs, {"page": "1000001"}, ordering=("x", "asc"))[0] == (
        "'page' must be between 1 and 1000000."
    )
    assert _fails(pg.paginate_v1, qs, {"page": "0"}, ordering=("x", "asc"))[0] == (
        "'page' must be between 1 and 1000000."
    )


def test_family_a_on_an_empty_list(db):
    page = pg.paginate_v1(SocialProfile.objects.order_by("pk"), {}, ordering=("created_at", "desc"))
    assert page.items == []
    assert page.pagination == {"page": 1, "limit": 20, "total": 0, "pages": 0}


def test_family_b_a_page_past_the_end_costs_only_its_count(profiles):
    """Issue 29: past the last row the page is known empty from the count alone, so its
    items are not fetched (one query, where a page with rows costs two)."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    qs = SocialProfile.objects.order_by("follower_count", "pk")
    with CaptureQueriesContext(connection) as queries:
        page = pg.paginate_api(qs, {"limit": "3", "offset": "3"})
    assert len(page.items) == 3 and len(queries) == 2
    for params in ({"offset": "7"}, {"limit": "3", "page": "4"}, {"offset": "10000000"}):
        with CaptureQueriesContext(connection) as queries:
            past = pg.paginate_api(qs, params)
        assert past.items == [] and past.pagination["total"] == 7, params
        assert len(queries) == 1, [q["sql"] for q in queries.captured_queries]
        assert "COUNT(" in queries.captured_queries[0]["sql"].upper()


def test_family_b_offsets_and_pages(profiles):
    qs = SocialProfile.objects.order_by("follower_count", "pk")
    counts = lambda page: [p.follower_count for p in page.items]  # noqa: E731
    first = pg.paginate_api(qs, {"limit": "3"})
    assert counts(first) == [10, 20, 20]
    assert first.pagination == {"limit": 3, "offset": 0, "total": 7, "hasNext": True, "hasPrev": False}
    second = pg.paginate_api(qs, {"limit": "3", "page": "2"})
    assert counts(second) == [20, 30, 40]
    assert second.pagination == {"limit": 3, "offset": 3, "total": 7, "hasNext": True, "hasPrev": True}
    last = pg.paginate_api(qs, {"limit": "3", "offset": "4"})
    assert counts(last) == [30, 40, 50]
    assert last.pagination == {"limit": 3, "offset": 4, "total": 7, "hasNext": False, "hasPrev": True}
    one = pg.paginate_api(qs, {"limit": "3", "offset": "1"})
    assert one.pagination["hasPrev"] is True and counts(one) == [20, 20, 20]
    exact = pg.paginate_api(qs, {"limit": "7"})
    assert exact.pagination == {"limit": 7, "offset": 0, "total": 7, "hasNext": False, "hasPrev": False}
    past = pg.paginate_api(qs, {"offset": "7"})
    assert past.items == [] and past.pagination["hasNext"] is False
    # offset wins over page, but a bad page is still a 400
    assert pg.paginate_api(qs, {"offset": "6", "page": "1"}).pagination["offset"] == 6
    assert (
        _fails(pg.paginate_api, qs, {"offset": "0", "page": "0"})[0]
        == "'page' must be between 1 and 1000000."
    )
    assert pg.paginate_api(qs, {"offset": "10000000"}).items == []
    assert (
        _fails(pg.paginate_api, qs, {"offset": "10000001"})[0] == "'offset' must be between 0 and 10000000."
    )
    assert _fails(pg.paginate_api, qs, {"offset": "-1"})[0] == "'offset' must be between 0 and 10000000."


def test_an_unordered_queryset_is_refused(profiles):
    message = r"^Paginating an unordered queryset gives unstable pages; order it first\.$"
    with pytest.raises(RuntimeError, match=message):
        pg.paginate_v1(SocialProfile.objects.order_by(), {}, ordering=("created_at", "desc"))
    with pytest.raises(RuntimeError, match=message):
        pg.paginate_api(SocialProfile.objects.order_by(), {})


# --- the classes ---------------------------------------------------------------------------


class _View:
    _ordering = ("follower_count", "asc")


class _Request:
    def __init__(self, params):
        self.query_params = params


def test_v1_pagination_class(profiles):
    paginator = pg.V1Pagination()
    qs = SocialProfile.objects.order_by("pk")
    items = paginator.paginate_queryset(qs, _Request({"cursor": "", "limit": "2"}), _View())
    assert [p.follower_count for p in items] == [10, 20]
    body = paginator.get_paginated_response(["a", "b"]).data
    assert body == {"data": ["a", "b"], "pagination": paginator.page.pagination}
    assert body["pagination"]["hasMore"] is True
    # without a view ordering, the keyset walks newest first
    items = paginator.paginate_queryset(qs, _Request({"cursor": "", "limit": "7"}), None)
    assert [p.pk for p in items] == [p.pk for p in SocialProfile.objects.order_by("-created_at", "-pk")]
    assert [p["name"] for p in paginator.get_schema_operation_parameters(None)] == ["page", "limit", "cursor"]
    assert paginator.get_schema_operation_parameters(None)[0] == {
        "in": "query",
        "name": "page",
        "required": False,
        "schema": {"type": "integer", "minimum": 1, "maximum": 1_000_000, "default": 1},
        "description": "",
    }
    assert paginator.get_schema_operation_parameters(None)[1]["schema"] == {
        "type": "integer",
        "minimum": 1,
        "maximum": 100,
        "default": 20,
    }


def test_api_pagination_class(profiles):
    paginator = pg.ApiPagination()
    items = paginator.paginate_queryset(
        SocialProfile.objects.order_by("follower_count", "pk"), _Request({"limit": "2", "offset": "5"})
    )
    assert [p.follower_count for p in items] == [40, 50]
    assert paginator.get_paginated_response([1]).data == {
        "data": [1],
        "pagination": {"limit": 2, "offset": 5, "total": 7, "hasNext": False, "hasPrev": True},
    }
    params = paginator.get_schema_operation_parameters(None)
    assert [p["name"] for p in params] == ["limit", "offset", "page"]
    assert params[1] == {
        "in": "query",
        "name": "offset",
        "required": False,
        "schema": {"type": "integer", "minimum": 0, "maximum": 10_000_000},
        "description": "Takes precedence over `page`",
    }


def test_cursor_json_is_what_orjson_writes():
    # a datetime left in the values is written as its str (orjson's default=str)
    when = datetime.datetime(2026, 1, 2, 3, 4, 5, tzinfo=datetime.UTC)
    assert orjson.loads(base64.urlsafe_b64decode(pg._encode_cursor([when, "x"]) + "==")) == [
        "2026-01-02T03:04:05+00:00",
        "x",
    ]


def test_query_param_states_an_optional_query_parameter():
    # (the module's parameters are built when it loads; called here so that its mutants run)
    assert pg.query_param("q", {"type": "string"}, "Words") == {
        "in": "query",
        "name": "q",
        "required": False,
        "schema": {"type": "string"},
        "description": "Words",
    }
    assert pg.query_param("q", {"type": "string"})["description"] == ""


def test_a_cursor_holds_any_value_as_its_string():
    import decimal

    assert pg._encode_cursor([decimal.Decimal("1.50"), "x"]) == "WyIxLjUwIiwieCJd"  # ["1.50","x"]


@pytest.mark.parametrize(
    ("field", "direction", "nulls"),
    [
        ("connected_at", "asc", "NULLS LAST"),
        ("connected_at", "desc", "NULLS FIRST"),
        ("follower_count", "asc", None),
        ("follower_count", "desc", None),
    ],
)
def test_the_order_states_where_empty_values_go_on_every_database(field, direction, nulls):
    # (PostgreSQL's default is this order too; SQLite's is the other way round)
    sql = str(pg.order_for_paging(SocialProfile.objects.all(), field, direction).query)
    if nulls:
        assert nulls in sql
    else:
        assert "NULLS" not in sql

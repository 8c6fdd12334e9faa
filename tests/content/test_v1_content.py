"""Family A content endpoints (/v1/content...): envelopes, generation end to end, edits, batch."""

from __future__ import annotations

import io
from datetime import timedelta

import av
import pytest
from django.conf import settings
from PIL import Image

from apps.content.models import Content
from apps.core.serializers import iso
from apps.media.models import Kind, MediaAsset
from apps.platforms import rules as platform_rules
from apps.platforms.validation import validate_variant
from tests.content.factories import make_content
from tests.factories import BrandFactory, ProfileFactory

pytestmark = pytest.mark.django_db


def cid(content) -> str:
    return f"cnt_{content.pk.hex}"


def stored_file(media_id: str) -> MediaAsset:
    return MediaAsset.objects.get(pk=media_id.removeprefix("med_"))


def test_it_answers_get_with_the_whole_content_item(api, owner):
    content = make_content(owner.org, platforms=("instagram", "tiktok"))
    asset = MediaAsset.objects.get(content=content)
    body = api.get(f"/v1/content/{cid(content)}").json()
    base = f"{settings.PUBLIC_BASE_URL}/media/org/{owner.org.pk.hex}/generated/{asset.pk.hex}"
    assert body == {
        "id": cid(content),
        "status": "generated",
        "platforms": ["instagram", "tiktok"],
        "createdAt": iso(content.created_at),
        "content": {
            "instagram": {
                "caption": "Fresh autumn roast, out today.",
                "hashtags": ["#coffee"],
                "firstComment": "",
                "altText": "",
                "adaptations": [],
            },
            "tiktok": {
                "caption": "Fresh autumn roast, out today.",
                "hashtags": ["#coffee"],
                "title": "",
                "sounds": [],
                "adaptations": [],
            },
        },
        "media": [
            {
                "id": f"med_{asset.pk.hex}",
                "type": "image",
                "url": f"{base}/file.png",
                "thumbnailUrl": f"{base}/thumb-thumb.jpg",
                "dimensions": {"width": 40, "height": 50},
                "ratio": None,  # not drawn for one platform's shape: every platform's
                "platforms": sorted(content.platforms),
            }
        ],
        "analytics": {
            "views": 0,
            "likes": 0,
            "comments": 0,
            "shares": 0,
            "metricsUpdatedAt": None,
            "engagementRate": None,
            "engagementRateBasis": None,
        },
        "brandId": f"brd_{content.brand_id.hex}",
        "prompt": "Autumn roast launch",
        "intent": {"value": "", "confidence": None, "source": ""},  # made here, not by a generation
        "postType": "feed",
        "mediaType": "image",
        "dimensions": "4:5",
        "progress": 100,
        # made by hand here, no generation finished: nothing computed, nobody set it (issue 32)
        "aiGenerated": "none",
        "aiGeneratedOverridden": False,
        "publications": [],
        "allowedActions": ["approve", "reject", "edit", "regenerate", "schedule", "publish", "edit_image"],
    }


def test_it_generates_captions_for_several_platforms_and_a_real_image(
    api, owner, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        response = api.post(
            "/v1/content/generate",
            {
                "prompt": "Launch of our autumn single-origin roast",
                "platforms": ["instagram", "x", "linkedin"],
                "settings": {
                    "tone": "professional",
                    "length": "short",
                    "hashtagCount": 3,
                    "language": "en",
                    "creativity": 7,
                },
                "media": {"generate": True, "style": "illustration", "count": 2},
            },
            format="json",
        )
    assert response.status_code == 202
    created = response.json()
    assert created["status"] == "pending"
    assert created["platforms"] == ["instagram", "x", "linkedin"]
    assert created["id"].startswith("cnt_")
    assert {"content", "media", "createdAt", "allowedActions"} <= set(created)

    body = api.get(f"/v1/content/{created['id']}").json()
    assert body["status"] == "generated"
    assert body["progress"] == 100
    assert set(body["content"]) == {"instagram", "x", "linkedin"}
    for platform, variant in body["content"].items():
        assert variant["caption"]
        assert all(tag.startswith("#") for tag in variant["hashtags"])
        assert validate_variant(platform, variant, post_type="feed", media_type="image") == {}
    # two pictures for each platform, each drawn in its platform's own shape (issue 30):
    # Instagram 4:5, X 16:9, LinkedIn 1.91:1
    assert len(body["media"]) == 6
    own = {"instagram": "4:5", "x": "16:9", "linkedin": "1.91:1"}
    for record in body["media"]:
        [platform] = record["platforms"]
        assert record["ratio"] == own[platform]
        width, height = platform_rules.own_size(platform, "feed", "image", own[platform])
        assert record["dimensions"] == {"width": width, "height": height}
        with stored_file(record["id"]).file.open("rb") as fh, Image.open(io.BytesIO(fh.read())) as img:
            assert img.size == (width, height)
    content = Content.objects.get(pk=created["id"][4:])
    assert content.settings == {
        "tone": "professional",
        "length": "short",
        "hashtag_count": 3,
        "language": "en",
        "creativity": 7,
    }
    assert content.media_request["style"] == "illustration"


def test_it_generates_a_5_to_8_second_video(api, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        response = api.post(
            "/v1/content/generate",
            {
                "prompt": "Pouring latte art in slow motion",
                "platforms": ["tiktok"],
                "media": {"type": "video", "postType": "short", "dimensions": "9:16"},
            },
            format="json",
        )
    assert response.status_code == 202
    body = api.get(f"/v1/content/{response.json()['id']}").json()
    assert body["status"] == "generated"
    [video] = body["media"]
    assert video["type"] == "video"
    assert 5 <= video["duration"] <= 8
    with stored_file(video["id"]).file.open("rb") as fh:
        container = av.open(io.BytesIO(fh.read()))
        stream = container.streams.video[0]
        seconds = float(container.duration / av.time_base)
        assert (stream.codec_context.width, stream.codec_context.height) == (
            video["dimensions"]["width"],
            video["dimensions"]["height"],
        )
        container.close()
    assert 5 <= seconds <= 8.1
    assert "sounds" in body["content"]["tiktok"]


def test_it_applies_the_brand_given_in_the_settings(api, owner, django_capture_on_commit_callbacks):
    brand = BrandFactory(organization=owner.org, hashtags=["#roastery"])
    with django_capture_on_commit_callbacks(execute=True):
        response = api.post(
            "/v1/content/generate",
            {
                "prompt": "New espresso blend",
                "platforms": ["instagram"],
                "settings": {"brandId": f"brd_{brand.pk.hex}", "language": "es"},
            },
            format="json",
        )
    body = api.get(f"/v1/content/{response.json()['id']}").json()
    assert body["brandId"] == f"brd_{brand.pk.hex}"
    assert body["status"] == "generated"


@pytest.mark.parametrize(
    ("payload", "field"),
    [
        ({"platforms": ["x"]}, "prompt"),
        ({"prompt": "x"}, "platforms"),
        ({"prompt": "x", "platforms": ["myspace"]}, "platforms"),
        ({"prompt": "x", "platforms": ["x"], "settings": {"creativity": 11}}, "settings"),
        ({"prompt": "x", "platforms": ["x"], "settings": {"hashtagCount": 31}}, "settings"),
        ({"prompt": "x", "platforms": ["x"], "settings": {"language": "eng"}}, "settings"),
        ({"prompt": "x", "platforms": ["x"], "settings": {"language": "ja"}}, "settings"),
        ({"prompt": "x", "platforms": ["x"], "settings": {"length": "epic"}}, "settings"),
        (
            {
                "prompt": "x",
                "platforms": ["x"],
                "settings": {"brandId": "brd_00000000000000000000000000000000"},
            },
            "settings",
        ),
        ({"prompt": "x", "platforms": ["x"], "media": {"count": 5}}, "media"),
        ({"prompt": "x", "platforms": ["x"], "media": {"style": "cubist"}}, "media"),
        ({"prompt": "x", "platforms": ["x"], "colour": "red"}, "colour"),
    ],
)
def test_it_refuses_invalid_generation_requests(api, payload, field):
    response = api.post("/v1/content/generate", payload, format="json")
    assert response.status_code == 400, response.content
    assert response.json()["error"]["code"] == "VALIDATION_ERROR"
    assert field in response.json()["error"]["details"]
    assert not Content.objects.exists()


def test_it_refuses_carousel_media_with_a_clear_message(api):
    response = api.post(
        "/v1/content/generate",
        {"prompt": "x", "platforms": ["instagram"], "media": {"type": "carousel"}},
        format="json",
    )
    assert response.status_code == 400
    assert "Carousel media is not implemented" in response.json()["error"]["details"]["media"][0]


@pytest.mark.parametrize("wait", ["0", "61", "-1", "soon", "nan", "inf"])
def test_it_refuses_a_wait_out_of_range(api, wait):
    response = api.post(
        f"/v1/content/generate?wait={wait}", {"prompt": "x", "platforms": ["x"]}, format="json"
    )
    assert response.status_code == 400
    assert response.json()["error"] == {
        "code": "VALIDATION_ERROR",
        "message": "wait must be more than 0 and at most 60 seconds.",
        "details": {"wait": ["Must be in (0, 60]."]},
    }


@pytest.mark.django_db(transaction=True)
def test_wait_returns_the_generated_content_with_200(owner):
    response = owner.client().post(
        "/v1/content/generate?wait=30",
        {"prompt": "Cold brew season", "platforms": ["x", "threads"]},
        format="json",
    )
    assert response.status_code == 200
    assert response.json()["status"] == "generated"
    assert set(response.json()["content"]) == {"x", "threads"}


def test_wait_gives_up_after_the_time_and_answers_202(api):
    # the worker never runs here (nothing commits inside the test transaction)
    response = api.post(
        "/v1/content/generate?wait=0.3", {"prompt": "Cold brew season", "platforms": ["x"]}, format="json"
    )
    assert response.status_code == 202
    assert response.json()["status"] == "pending"


def test_generate_counts_against_the_generation_rate_limit(api, settings):
    settings.RATE_LIMIT_GENERATION = 2
    codes = [
        api.post("/v1/content/generate", {"prompt": "x", "platforms": ["x"]}, format="json").status_code
        for _ in range(3)
    ]
    assert codes == [202, 202, 429]


# --- list -------------------------------------------------------------------------------------------


def test_it_lists_content_with_filters_sorting_and_field_selection(api, owner):
    profile = ProfileFactory(organization=owner.org, platform="x")
    a = make_content(owner.org, status="review", platforms=("instagram",))
    b = make_content(owner.org, status="draft", platforms=("x", "threads"), profile=profile)
    c = make_content(owner.org, status="failed", platforms=("linkedin",))
    make_content(
        make_content.__globals__["BrandFactory"]().organization, status="review"
    )  # another organization

    body = api.get("/v1/content").json()
    assert [x["id"] for x in body["data"]] == [cid(c), cid(b), cid(a)]
    assert body["pagination"] == {"page": 1, "limit": 20, "total": 3, "pages": 1}
    assert "analytics" not in body["data"][0]

    assert [x["id"] for x in api.get("/v1/content?status=generated").json()["data"]] == [cid(a)]
    assert [x["id"] for x in api.get("/v1/content?status=generated,draft").json()["data"]] == [cid(b), cid(a)]
    assert [x["id"] for x in api.get("/v1/content?platform=x").json()["data"]] == [cid(b)]
    assert [x["id"] for x in api.get(f"/v1/content?profileId=prf_{profile.pk.hex}").json()["data"]] == [
        cid(b)
    ]
    assert [x["id"] for x in api.get("/v1/content?sortBy=status&sortOrder=asc").json()["data"]] == [
        cid(b),
        cid(c),
        cid(a),
    ]
    assert api.get("/v1/content?fields=id,status&limit=1").json()["data"] == [
        {"id": cid(c), "status": "failed"}
    ]
    assert api.get("/v1/content?startDate=2000-01-01&endDate=2000-01-02").json()["data"] == []
    assert len(api.get(f"/v1/content?startDate={a.created_at.date().isoformat()}").json()["data"]) == 3
    page = api.get("/v1/content?cursor=&limit=2").json()
    assert [x["id"] for x in page["data"]] == [cid(c), cid(b)]
    rest = api.get(f"/v1/content?cursor={page['pagination']['nextCursor']}&limit=2").json()
    assert [x["id"] for x in rest["data"]] == [cid(a)]


@pytest.mark.parametrize("sort", ["", "&sortOrder=asc", "&sortBy=status&sortOrder=asc", "&sortBy=status"])
def test_cursor_paging_walks_the_same_order_as_pages_across_ties(api, owner, sort):
    """Keyset paging bounds the sort column for the planner (`created_at <= cursor`) and breaks
    ties on the id: rows that share a sort value (here five share a creation instant, and
    statuses repeat) come once each, in the order page numbers give."""
    contents = [make_content(owner.org, status=("review", "draft")[n % 2]) for n in range(7)]
    instant = contents[0].created_at
    Content.objects.filter(pk__in=[c.pk for c in contents[1:6]]).update(created_at=instant)
    by_page = [x["id"] for x in api.get(f"/v1/content?limit=20{sort}").json()["data"]]
    walked, cursor = [], ""
    while cursor is not None:
        body = api.get(f"/v1/content?limit=2&cursor={cursor}{sort}").json()
        walked += [x["id"] for x in body["data"]]
        cursor = body["pagination"]["nextCursor"]
    assert walked == by_page
    assert sorted(walked) == sorted(cid(c) for c in contents)


@pytest.mark.parametrize("order", ["asc", "desc"])
def test_cursor_paging_walks_empty_sort_values_in_page_order(api, owner, order):
    """`publishedAt` is empty until an item is published: the empty ones count as the largest
    value (last ascending, first descending) for page numbers and cursors alike, and a cursor
    that ends on an empty value goes on to the filled ones (it used to stop there)."""
    contents = [make_content(owner.org, status="review") for _ in range(7)]
    instant = contents[0].created_at
    for n, item in enumerate(contents[:4]):  # two share a publication instant
        Content.objects.filter(pk=item.pk).update(published_at=instant + timedelta(minutes=n // 2))
    sort = f"&sortBy=publishedAt&sortOrder={order}"
    by_page = [x["id"] for x in api.get(f"/v1/content?limit=20{sort}").json()["data"]]
    empty = {cid(c) for c in contents[4:]}
    assert set(by_page[-3:] if order == "asc" else by_page[:3]) == empty
    for limit in (1, 2, 3):
        walked, cursor = [], ""
        while cursor is not None:
            body = api.get(f"/v1/content?limit={limit}&cursor={cursor}{sort}").json()
            walked += [x["id"] for x in body["data"]]
            cursor = body["pagination"]["nextCursor"]
        assert walked == by_page, limit


@pytest.mark.parametrize(
    ("query", "field"),
    [
        ("status=reviewing", "status"),
        ("status=", None),
        ("platform=myspace", "platform"),
        ("sortBy=prompt", "sortBy"),
        ("startDate=yesterday", "startDate"),
        ("fields=id,secret", "fields"),
        ("limit=101", "limit"),
        # paging and sort are typed: empty is not a number or a sort (a filter left empty is
        # the filter left out, as `status=` above)
        ("limit=", "limit"),
        ("page=", "page"),
        ("sortBy=", "sortBy"),
        ("sortOrder=", "sortOrder"),
    ],
)
def test_it_refuses_invalid_list_parameters(api, query, field):
    response = api.get(f"/v1/content?{query}")
    if field is None:
        assert response.status_code == 200
        return
    assert response.status_code == 400
    assert field in response.json()["error"]["details"]


def test_an_unknown_status_names_the_allowed_ones(api):
    details = api.get("/v1/content?status=generated,bogus").json()["error"]["details"]
    assert details == {
        "status": [
            "Allowed: draft, pending, generating, generated, approved, rejected, scheduled, "
            "publishing, published, failed."
        ]
    }


# --- update, delete, actions ------------------------------------------------------------------------


def test_it_updates_a_caption_and_goes_back_to_draft(api, owner):
    content = make_content(owner.org, platforms=("instagram", "x"))
    response = api.put(
        f"/v1/content/{cid(content)}",
        {"content": {"x": {"caption": "Short and sweet", "hashtags": ["roast"]}}, "status": "draft"},
        format="json",
    )
    assert response.status_code == 200
    body = response.json()
    assert body["status"] == "draft"
    assert body["content"]["x"]["caption"] == "Short and sweet"
    assert body["content"]["x"]["hashtags"] == ["#roast"]
    assert body["content"]["instagram"]["caption"] == "Fresh autumn roast, out today."


def test_a_caption_over_the_platform_limit_is_a_400_naming_the_limit(api, owner):
    content = make_content(owner.org, platforms=("x",))
    response = api.put(
        f"/v1/content/{cid(content)}", {"content": {"x": {"caption": "word " * 80}}}, format="json"
    )
    assert response.status_code == 400
    message = response.json()["error"]["details"]["content"]["x"]["caption"]
    assert "the limit on X is 280" in message
    content.refresh_from_db()
    assert content.variants.get().caption == "Fresh autumn roast, out today."


@pytest.mark.parametrize(
    ("payload", "field"),
    [
        ({}, "content"),
        ({"status": "approved"}, "status"),
        ({"content": {"myspace": {"caption": "x"}}}, "content"),
        ({"content": {"tiktok": {"caption": "x"}}}, "content"),
        ({"content": {"x": {"colour": "red"}}}, "content"),
    ],
)
def test_it_refuses_invalid_updates(api, owner, payload, field):
    content = make_content(owner.org, platforms=("x",))
    response = api.put(f"/v1/content/{cid(content)}", payload, format="json")
    assert response.status_code == 400
    assert field in response.json()["error"]["details"]


def test_it_deletes_content(api, owner):
    content = make_content(owner.org)
    assert api.delete(f"/v1/content/{cid(content)}").status_code == 204
    assert api.get(f"/v1/content/{cid(content)}").status_code == 404
    assert api.delete(f"/v1/content/{cid(content)}").json()["error"]["code"] == "NOT_FOUND"


def test_an_admin_approves_and_rejects(api, owner, editor):
    first, second = make_content(owner.org), make_content(owner.org)
    assert editor.client().post(f"/v1/content/{cid(first)}/approve").status_code == 403
    approved = api.post(f"/v1/content/{cid(first)}/approve")
    assert approved.status_code == 200
    assert approved.json()["status"] == "approved"
    assert approved.json()["allowedActions"] == ["edit", "schedule", "publish"]
    rejected = api.post(f"/v1/content/{cid(second)}/reject", {"reason": "Wrong colours"}, format="json")
    assert rejected.status_code == 200
    assert (rejected.json()["status"], rejected.json()["statusReason"]) == ("rejected", "Wrong colours")


def test_regenerate_answers_202_and_generates_again(api, owner, django_capture_on_commit_callbacks):
    content = make_content(owner.org, platforms=("x",), image=False)
    with django_capture_on_commit_callbacks(execute=True):
        response = api.post(f"/v1/content/{cid(content)}/regenerate")
    assert response.status_code == 202
    assert response.json()["status"] == "pending"
    body = api.get(f"/v1/content/{cid(content)}").json()
    assert body["status"] == "generated"
    assert body["content"]["x"]["caption"] != "Fresh autumn roast, out today."


def test_edit_image_changes_the_pixels_keeps_a_backup_and_undo_restores_it(api, owner):
    content = make_content(owner.org)
    original = MediaAsset.objects.get(content=content)
    response = api.post(
        f"/v1/content/{cid(content)}/edit-image", {"prompt": "black and white"}, format="json"
    )
    assert response.status_code == 200
    [edited] = response.json()["media"]
    assert edited["id"] != f"med_{original.pk.hex}"
    with stored_file(edited["id"]).file.open("rb") as fh, Image.open(fh) as img:
        r, g, b = img.convert("RGB").getpixel((5, 5))
    assert r == g == b  # the red original is grey now
    original.refresh_from_db()
    assert original.kind == Kind.BACKUP

    undone = api.post(f"/v1/content/{cid(content)}/edit-image/undo")
    assert undone.status_code == 200
    assert [m["id"] for m in undone.json()["media"]] == [f"med_{original.pk.hex}"]
    original.refresh_from_db()
    assert original.kind == Kind.GENERATED
    assert api.post(f"/v1/content/{cid(content)}/edit-image/undo").status_code == 400  # nothing left to undo
    assert api.post(f"/v1/content/{cid(content)}/edit-image", {}, format="json").status_code == 400


# --- batch ------------------------------------------------------------------------------------------


def test_batch_runs_each_operation_on_its_own(api, owner, outsider):
    keep, drop = make_content(owner.org, platforms=("x",)), make_content(owner.org)
    theirs = make_content(outsider.org)
    response = api.post(
        "/v1/content/batch",
        {
            "operations": [
                {
                    "method": "update",
                    "id": cid(keep),
                    "data": {"content": {"x": {"caption": "Updated in bulk"}}},
                },
                {"method": "delete", "id": cid(drop)},
                {"method": "delete", "id": cid(theirs)},
                {"method": "update", "id": cid(keep), "data": {"content": {"x": {"caption": "word " * 80}}}},
            ]
        },
        format="json",
    )
    assert response.status_code == 200
    results = response.json()["results"]
    assert [r["status"] for r in results] == ["ok", "ok", "error", "error"]
    assert results[0] == {"id": cid(keep), "method": "update", "status": "ok"}
    assert results[2]["error"]["code"] == "NOT_FOUND"
    assert results[3]["error"]["code"] == "VALIDATION_ERROR"
    assert "280" in results[3]["details"]["content"]["x"]["caption"]
    assert Content.objects.get(pk=keep.pk).variants.get().caption == "Updated in bulk"
    assert not Content.objects.filter(pk=drop.pk).exists()
    assert Content.objects.filter(pk=theirs.pk).exists()


def test_batch_refuses_an_operation_outside_the_schema_before_running_any(api, owner):
    """A method other than update/delete, or a `data` PUT would refuse, is what the schema
    rules out: a 400 naming the operation's index, and nothing runs."""
    keep = make_content(owner.org, platforms=("x",))
    response = api.post(
        "/v1/content/batch",
        {
            "operations": [
                {"method": "delete", "id": cid(keep)},
                {"method": "archive", "id": cid(keep)},
                {"method": "update", "id": cid(keep), "data": {"status": "published"}},
            ]
        },
        format="json",
    )
    assert response.status_code == 400, response.content
    details = response.json()["error"]["details"]["operations"]
    assert set(details) == {"1", "2"} and "method" in details["1"] and "status" in details["2"]["data"]
    assert Content.objects.filter(pk=keep.pk).exists()


@pytest.mark.parametrize("operations", [[], [{"method": "delete", "id": "cnt_x"}] * 101, "all"])
def test_batch_refuses_an_empty_or_oversized_list(api, operations):
    response = api.post("/v1/content/batch", {"operations": operations}, format="json")
    assert response.status_code == 400
    assert "operations" in response.json()["error"]["details"]


@pytest.mark.parametrize(("ratio", "platform"), [("2:3", "pinterest"), ("1.91:1", "linkedin")])
def test_every_ratio_of_the_platform_data_is_accepted_in_both_families(api, owner, ratio, platform):
    """Pinterest's 2:3 and the link-preview 1.91:1 are ratios the platform data uses (issue 30)."""
    from tests.factories import ProfileFactory

    response = api.post(
        "/v1/content/generate",
        {
            "prompt": "Autumn roast launch",
            "platforms": [platform],
            "media": {"type": "image", "dimensions": ratio},
        },
        format="json",
    )
    assert response.status_code == 202, response.content
    assert api.get(f"/v1/content/{response.json()['id']}").json()["dimensions"] == ratio
    profile = ProfileFactory(organization=owner.org, platform=platform)
    family_b = owner.token_client(subject="ratio-owner").post(
        "/api/content",
        {
            "socialProfileId": str(profile.pk),
            "platform": platform,
            "media": "image",
            "dimensions": ratio,
            "prompt": "x",
        },
        format="json",
    )
    assert family_b.status_code == 201, family_b.content
    assert family_b.json()["data"]["dimensions"] == ratio

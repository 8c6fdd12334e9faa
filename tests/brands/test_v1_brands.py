from __future__ import annotations

import pytest
from django.conf import settings

from apps.brands.models import Brand
from apps.core import ids
from tests.conftest import png_bytes

pytestmark = pytest.mark.django_db

BRAND = {
    "name": "Sunrise Coffee",
    "description": "Small-batch roasters",
    "guidelines": {
        "voice": "warm, witty",
        "tone": ["friendly", "expert"],
        "colors": {"primary": "#AA3300", "secondary": "#FFEEDD"},
        "hashtags": ["coffee", "#SmallBatch"],
    },
    "assets": {"fonts": ["Inter"]},
}


def test_it_creates_a_brand_and_returns_the_whole_resource(api):
    response = api.post("/v1/brands", BRAND, format="json")
    assert response.status_code == 201
    body = response.json()
    brand = Brand.objects.get(pk=ids.parse(body["id"], "brand"))
    assert body == {
        "id": f"brd_{brand.pk.hex}",
        "name": "Sunrise Coffee",
        "description": "Small-batch roasters",
        "guidelines": {
            "voice": "warm, witty",
            "tone": ["friendly", "expert"],
            "colors": {"primary": "#AA3300", "secondary": "#FFEEDD"},
            "hashtags": ["#coffee", "#SmallBatch"],
        },
        "assets": {"logo": None, "fonts": ["Inter"]},
        "linkTracking": {
            "enabled": False,
            "utm": {"utm_source": "{platform}", "utm_medium": "social", "utm_campaign": "{campaign}"},
            "platforms": {},
            "shortLinks": False,
        },
        "isDefault": False,
        "createdAt": body["createdAt"],
        "updatedAt": body["updatedAt"],
    }
    assert body["createdAt"].endswith("Z")
    assert response["X-Request-ID"].startswith("req_")
    assert response["X-RateLimit-Limit"] == "100"


def test_it_lists_brands_with_the_family_a_pagination(api, owner):
    for n in range(3):
        api.post("/v1/brands", {**BRAND, "name": f"B{n}"}, format="json")
    body = api.get("/v1/brands?limit=2&sortBy=name&sortOrder=asc").json()
    assert body["pagination"] == {"page": 1, "limit": 2, "total": 4, "pages": 2}
    assert [b["name"] for b in body["data"]] == ["Acme", "B0"]


def test_it_refuses_a_bad_colour_with_field_details(api):
    bad = {**BRAND, "guidelines": {"colors": {"primary": "red"}}}
    response = api.post("/v1/brands", bad, format="json")
    assert response.status_code == 400
    body = response.json()
    assert body["error"]["code"] == "VALIDATION_ERROR"
    assert "colors" in body["error"]["details"]["guidelines"]
    assert body["requestId"] == response["X-Request-ID"]


def test_it_refuses_malformed_json_with_a_400(api):
    response = api.generic("POST", "/v1/brands", "{not json", content_type="application/json")
    assert response.status_code == 400
    assert response.json()["error"]["code"] == "VALIDATION_ERROR"


def test_it_refuses_unknown_fields(api):
    response = api.post("/v1/brands", {**BRAND, "colour": "#000000"}, format="json")
    assert response.status_code == 400
    assert response.json()["error"]["details"] == {"colour": ["Unknown field."]}


def test_it_updates_and_deletes_a_brand(api):
    brand_id = api.post("/v1/brands", BRAND, format="json").json()["id"]
    response = api.put(f"/v1/brands/{brand_id}", {"guidelines": {"voice": "bold"}}, format="json")
    assert response.status_code == 200
    assert response.json()["guidelines"]["voice"] == "bold"
    assert response.json()["name"] == "Sunrise Coffee"
    assert api.delete(f"/v1/brands/{brand_id}").status_code == 204
    assert api.get(f"/v1/brands/{brand_id}").status_code == 404


def test_the_default_brand_cannot_be_deleted(api, owner):
    default = Brand.objects.get(organization=owner.org, is_default=True)
    response = api.delete(f"/v1/brands/brd_{default.pk.hex}")
    assert response.status_code == 409
    assert response.json()["error"]["code"] == "CONFLICT"


def test_it_uploads_a_brand_asset_and_can_make_it_the_logo(api):
    brand_id = api.post("/v1/brands", BRAND, format="json").json()["id"]
    upload = {"file": ("logo.png", png_bytes((300, 200)), "image/png")}
    from django.core.files.uploadedfile import SimpleUploadedFile

    f = SimpleUploadedFile("logo.png", png_bytes((300, 200)), content_type="image/png")
    response = api.post(f"/v1/brands/{brand_id}/assets", {"file": f, "type": "logo"}, format="multipart")
    assert response.status_code == 201, response.json()
    body = response.json()
    assert body["assetId"].startswith("ast_")
    assert body["type"] == "image"
    assert body["url"].startswith(f"{settings.PUBLIC_BASE_URL}/media/")
    assert body["metadata"]["filename"] == "logo.png"
    assert body["metadata"]["dimensions"] == {"width": 300, "height": 200}
    assert body["metadata"]["size"] > 0
    brand = api.get(f"/v1/brands/{brand_id}").json()
    assert brand["assets"]["logo"] == body["url"]
    assert upload


def test_an_upload_that_is_not_an_image_is_refused_clearly(api):
    from django.core.files.uploadedfile import SimpleUploadedFile

    brand_id = api.post("/v1/brands", BRAND, format="json").json()["id"]
    f = SimpleUploadedFile("logo.png", b"this is not an image", content_type="image/png")
    response = api.post(f"/v1/brands/{brand_id}/assets", {"file": f}, format="multipart")
    assert response.status_code == 400
    assert response.json()["error"]["details"]["reason"] == "unsupported_type"


def test_a_malformed_id_is_a_404_not_a_500(api):
    for bad in ("nope", "brd_xyz", "cnt_" + "0" * 32, "../../etc"):
        response = api.get(f"/v1/brands/{bad}")
        assert response.status_code == 404, bad
        assert response.json()["error"]["code"] == "NOT_FOUND"


def test_v2_answers_404_in_family_a_format(api):
    response = api.get("/v2/brands")
    assert response.status_code == 404
    assert response.json()["error"]["code"] == "NOT_FOUND"


def test_assets_logo_takes_an_https_url_or_an_asset_id_and_returns_what_was_given(api):
    from django.core.files.uploadedfile import SimpleUploadedFile

    url = "https://cdn.example.com/brand/logo.png?v=2"
    created = api.post("/v1/brands", {**BRAND, "assets": {"logo": url, "fonts": []}}, format="json")
    assert created.status_code == 201, created.json()
    brand_id = created.json()["id"]
    assert created.json()["assets"]["logo"] == url
    assert api.get(f"/v1/brands/{brand_id}").json()["assets"]["logo"] == url
    # an uploaded asset id replaces the URL; the URL given again replaces the asset
    f = SimpleUploadedFile("logo.png", png_bytes((64, 64)), content_type="image/png")
    asset = api.post(f"/v1/brands/{brand_id}/assets", {"file": f}, format="multipart").json()
    response = api.put(f"/v1/brands/{brand_id}", {"assets": {"logo": asset["assetId"]}}, format="json")
    assert response.status_code == 200, response.json()
    assert response.json()["assets"]["logo"] == asset["url"]
    response = api.put(f"/v1/brands/{brand_id}", {"assets": {"logo": url}}, format="json")
    assert response.json()["assets"]["logo"] == url
    # http and malformed URLs are a clear 400 on assets.logo, never a 500
    for bad in ("http://cdn.example.com/logo.png", "https://", "ftp://x.example.com/l.png"):
        response = api.put(f"/v1/brands/{brand_id}", {"assets": {"logo": bad}}, format="json")
        assert response.status_code == 400, (bad, response.json())
        assert "logo" in str(response.json()["error"]["details"])
    # null clears it
    response = api.put(f"/v1/brands/{brand_id}", {"assets": {"logo": None}}, format="json")
    assert response.json()["assets"]["logo"] is None

"""Family B media: list/get/delete, upload, reference images and thumbnails."""

from __future__ import annotations

import datetime
import io
import os
import uuid

import pytest
from django.conf import settings
from django.core.files.uploadedfile import SimpleUploadedFile
from PIL import Image

from apps.brands.models import Brand
from apps.core.serializers import iso
from apps.media.models import Kind, MediaAsset
from apps.media.services import media_create_from_bytes
from tests.conftest import png_bytes
from tests.factories import BrandFactory

pytestmark = pytest.mark.django_db

CAMERA = "PostforgeTestCam"


def jpeg_with_exif(size=(80, 60)) -> bytes:
    exif = Image.Exif()
    exif[0x010F] = CAMERA  # Make
    exif[0x0110] = "Model X"  # Model
    exif[0x0132] = "2024:01:01 10:00:00"  # DateTime
    buf = io.BytesIO()
    Image.new("RGB", size, (10, 120, 200)).save(buf, "JPEG", exif=exif.tobytes(), quality=90)
    return buf.getvalue()


def upload(name="photo.png", data=None, content_type="image/png") -> SimpleUploadedFile:
    return SimpleUploadedFile(name, png_bytes() if data is None else data, content_type=content_type)


def media_body(asset: MediaAsset) -> dict:
    return {
        "id": str(asset.pk),
        "kind": asset.kind,
        "type": asset.media_type,
        "url": f"{settings.PUBLIC_BASE_URL}{asset.file.url}",
        "thumbnailUrl": f"{settings.PUBLIC_BASE_URL}{asset.thumbnail.url}" if asset.thumbnail else None,
        "contentType": asset.content_type,
        "size": asset.size,
        "width": asset.width,
        "height": asset.height,
        "duration": asset.duration,
        "filename": asset.original_filename,
        "brandId": str(asset.brand_id) if asset.brand_id else None,
        "createdAt": iso(asset.created_at),
    }


@pytest.fixture
def b(owner):
    return owner.token_client(subject="media-owner")


def make_asset(org, *, kind=Kind.UPLOAD, size=(16, 16), filename="a.png", brand=None) -> MediaAsset:
    return media_create_from_bytes(
        organization=org,
        data=png_bytes(size),
        content_type="image/png",
        kind=kind,
        width=size[0],
        height=size[1],
        filename=filename,
        brand=brand,
    )


# --- upload ---------------------------------------------------------------------------------


def test_it_uploads_a_png_and_returns_the_whole_record(b, owner):
    response = b.post(
        "/api/media/upload", {"file": upload("My Photo.png", png_bytes((320, 200)))}, format="multipart"
    )
    assert response.status_code == 201, response.json()
    asset = MediaAsset.objects.get(organization=owner.org)
    assert response.json() == {"data": media_body(asset)}
    assert (asset.kind, asset.width, asset.height, asset.content_type) == ("upload", 320, 200, "image/png")
    assert asset.original_filename == "My_Photo.png"
    assert asset.thumbnail
    with Image.open(asset.file.path) as im:
        assert (im.format, im.size) == ("PNG", (320, 200))


def test_it_strips_exif_from_a_jpeg(b, owner):
    data = jpeg_with_exif()
    assert CAMERA.encode() in data
    response = b.post(
        "/api/media/upload", {"file": upload("cam.jpg", data, "image/jpeg")}, format="multipart"
    )
    assert response.status_code == 201, response.json()
    body = response.json()["data"]
    assert (body["contentType"], body["width"], body["height"]) == ("image/jpeg", 80, 60)
    asset = MediaAsset.objects.get(pk=body["id"])
    stored = asset.file.read()
    assert CAMERA.encode() not in stored
    with Image.open(io.BytesIO(stored)) as im:
        assert im.format == "JPEG"
        assert dict(im.getexif()) == {}


def test_the_type_is_read_from_the_bytes_not_the_name(b):
    response = b.post(
        "/api/media/upload", {"file": upload("photo.gif", jpeg_with_exif(), "image/gif")}, format="multipart"
    )
    assert response.status_code == 201
    assert response.json()["data"]["contentType"] == "image/jpeg"


def test_a_file_of_the_wrong_type_is_refused(b, owner):
    response = b.post(
        "/api/media/upload",
        {"file": upload("notes.png", b"just some text, honest", "image/png")},
        format="multipart",
    )
    assert response.status_code == 400
    body = response.json()
    assert body["details"]["code"] == "VALIDATION_ERROR"
    assert body["details"]["reason"] == "unsupported_type"
    assert list(body["details"]) == ["code", "file", "reason"]
    assert not MediaAsset.objects.filter(organization=owner.org).exists()


def test_a_missing_file_is_refused(b):
    response = b.post("/api/media/upload", {"kind": "upload"}, format="multipart")
    assert response.status_code == 400
    assert response.json() == {
        "error": "No file: send it as multipart form field 'file'.",
        "details": {"code": "VALIDATION_ERROR", "file": ["This field is required."]},
    }


def test_an_oversize_image_is_a_413(b, owner, settings):
    settings.UPLOAD_MAX_IMAGE_BYTES = 200
    response = b.post(
        "/api/media/upload", {"file": upload("big.png", png_bytes((400, 400), (1, 2, 3)))}, format="multipart"
    )
    assert response.status_code == 413
    assert response.json() == {
        "error": "The image is larger than the limit of 200 bytes.",
        "details": {
            "code": "VALIDATION_ERROR",
            "file": ["The image is larger than the limit of 200 bytes."],
            "reason": "too_large",
        },
    }
    assert not MediaAsset.objects.filter(organization=owner.org).exists()


@pytest.mark.parametrize(
    ("field", "value"), [("kind", "logo"), ("kind", "generated"), ("brandId", "brd_nope")]
)
def test_upload_refuses_a_bad_kind_or_brand(b, field, value):
    response = b.post("/api/media/upload", {"file": upload(), field: value}, format="multipart")
    assert response.status_code == 400
    assert list(response.json()["details"]) == ["code", field]


def test_a_json_upload_is_refused_with_a_clear_status(b):
    response = b.post("/api/media/upload", {"file": "aGVsbG8="}, format="json")
    assert response.status_code == 415
    assert response.json()["details"]["code"] == "VALIDATION_ERROR"


# --- list, get, delete -----------------------------------------------------------------------


def test_it_lists_media_with_the_family_b_envelope(b, owner, outsider):
    first = make_asset(owner.org, filename="one.png")
    second = make_asset(owner.org, filename="two.png", kind=Kind.REFERENCE)
    make_asset(outsider.org, filename="theirs.png")
    response = b.get("/api/media")
    assert response.status_code == 200
    assert response.json() == {
        "data": [media_body(second), media_body(first)],
        "pagination": {"limit": 20, "offset": 0, "total": 2, "hasNext": False, "hasPrev": False},
    }


def test_it_filters_media_by_kind_type_brand_search_and_date(b, owner):
    brand = BrandFactory(organization=owner.org)
    a = make_asset(owner.org, filename="summer-sale.png")
    r = make_asset(owner.org, filename="moodboard.png", kind=Kind.REFERENCE, brand=brand)
    MediaAsset.objects.filter(pk=a.pk).update(
        created_at=datetime.datetime(2024, 6, 1, 12, tzinfo=datetime.UTC)
    )

    def got(query):
        return [x["id"] for x in b.get(f"/api/media?{query}").json()["data"]]

    assert got("kind=reference") == [str(r.pk)]
    assert got("type=image&sort=createdAt:asc") == [str(a.pk), str(r.pk)]
    assert got("type=video") == []
    assert got(f"brandId={brand.pk}") == [str(r.pk)]
    assert got("q=SALE") == [str(a.pk)]
    assert got("search=mood") == [str(r.pk)]
    assert got("date_from=2024-05-31&date_to=2024-06-01T23:59:59Z") == [str(a.pk)]
    assert got("date_from=2025-01-01") == [str(r.pk)]


@pytest.mark.parametrize(
    ("query", "field"),
    [
        ("kind=sticker", "kind"),
        ("type=audio", "type"),
        ("brandId=nope", "brandId"),
        ("limit=0", "limit"),
        ("limit=101", "limit"),
        ("sort=filename:asc", "sort"),
        ("date_to=soon", "date_to"),
    ],
)
def test_it_refuses_bad_list_parameters(b, query, field):
    response = b.get(f"/api/media?{query}")
    assert response.status_code == 400
    assert list(response.json()["details"]) == ["code", field]


def test_it_sorts_media_by_size(b, owner):
    small = make_asset(owner.org, size=(4, 4))
    big = make_asset(owner.org, size=(300, 300))
    assert [x["id"] for x in b.get("/api/media?sort=size:desc").json()["data"]] == [
        str(big.pk),
        str(small.pk),
    ]
    assert [x["id"] for x in b.get("/api/media?sort=size:asc").json()["data"]] == [str(small.pk), str(big.pk)]


def test_it_gets_one_media_record(b, owner):
    asset = make_asset(owner.org)
    response = b.get(f"/api/media/{asset.pk}")
    assert response.status_code == 200
    assert response.json() == {"data": media_body(asset)}
    assert b.get(f"/api/media/med_{asset.pk.hex}").json() == {"data": media_body(asset)}


def test_it_deletes_a_media_record_and_its_files(b, owner, django_capture_on_commit_callbacks):
    asset = make_asset(owner.org)
    paths = [asset.file.path, asset.thumbnail.path]
    assert all(os.path.exists(p) for p in paths)
    with django_capture_on_commit_callbacks(execute=True):
        response = b.delete(f"/api/media/{asset.pk}")
    assert response.status_code == 204
    assert not MediaAsset.objects.filter(pk=asset.pk).exists()
    assert not any(os.path.exists(p) for p in paths)
    assert b.get(f"/api/media/{asset.pk}").status_code == 404


def test_a_viewer_reads_media_but_cannot_upload_or_delete(viewer):
    asset = make_asset(viewer.org)
    client = viewer.client()
    assert client.get(f"/api/media/{asset.pk}").status_code == 200
    assert client.post("/api/media/upload", {"file": upload()}, format="multipart").status_code == 403
    assert client.delete(f"/api/media/{asset.pk}").status_code == 403
    assert MediaAsset.objects.filter(pk=asset.pk).exists()


# --- reference images -------------------------------------------------------------------------


def test_a_reference_image_without_a_brand_goes_to_the_default_brand(b, owner):
    response = b.post("/api/media/reference-images", {"file": upload("ref.png")}, format="multipart")
    assert response.status_code == 201
    default = Brand.objects.get(organization=owner.org, is_default=True)
    asset = MediaAsset.objects.get(pk=response.json()["data"]["id"])
    assert response.json() == {"data": media_body(asset)}
    assert (asset.kind, asset.brand_id) == ("reference", default.pk)


def test_reference_images_carry_the_brand_they_were_uploaded_for(b, owner):
    brand = BrandFactory(organization=owner.org)
    response = b.post(
        "/api/media/reference-images",
        {"file": upload(), "brandId": f"brd_{brand.pk.hex}"},
        format="multipart",
    )
    assert response.status_code == 201
    assert response.json()["data"]["brandId"] == str(brand.pk)
    make_asset(owner.org, filename="plain.png")
    listed = b.get("/api/media/reference-images").json()
    assert [x["id"] for x in listed["data"]] == [response.json()["data"]["id"]]
    assert listed["pagination"]["total"] == 1
    assert b.get(f"/api/brands/{brand.pk}/reference-images").json()["data"] == listed["data"]


def test_a_reference_image_must_be_an_image_of_a_known_brand(b, outsider):
    theirs = Brand.objects.get(organization=outsider.org, is_default=True)
    response = b.post(
        "/api/media/reference-images", {"file": upload(), "brandId": str(theirs.pk)}, format="multipart"
    )
    assert response.status_code == 400
    assert response.json() == {
        "error": "Unknown brand.",
        "details": {"code": "VALIDATION_ERROR", "brandId": ["Not found."]},
    }
    bad = b.post(
        "/api/media/reference-images", {"file": upload("x.png", b"GIF89a-but-not-really")}, format="multipart"
    )
    assert bad.status_code == 400
    assert bad.json()["details"]["code"] == "VALIDATION_ERROR"


def test_reference_images_filter_by_type_and_brand_as_the_media_list_does(b, owner):
    brand = BrandFactory(organization=owner.org)
    mood = make_asset(owner.org, kind=Kind.REFERENCE, brand=brand)
    other = make_asset(owner.org, kind=Kind.REFERENCE)
    clip = make_asset(owner.org, kind=Kind.REFERENCE, brand=brand)
    MediaAsset.objects.filter(pk=clip.pk).update(media_type="video")
    make_asset(owner.org, brand=brand)  # an upload: never a reference image

    def got(query):
        response = b.get(f"/api/media/reference-images?sort=createdAt:asc&{query}")
        assert response.status_code == 200, response.content
        return [x["id"] for x in response.json()["data"]]

    assert got("type=image") == [str(mood.pk), str(other.pk)]
    assert got("type=video") == [str(clip.pk)]
    assert got(f"brandId={brand.pk}") == [str(mood.pk), str(clip.pk)]
    assert got(f"brandId=brd_{brand.pk.hex}&type=image") == [str(mood.pk)]
    assert got("type=&brandId=") == [str(mood.pk), str(other.pk), str(clip.pk)]
    # every reference image is of kind reference: a `kind` is not read
    assert got("kind=upload") == [str(mood.pk), str(other.pk), str(clip.pk)]


# --- thumbnails -----------------------------------------------------------------------------------


def test_thumbnails_list_the_thumbnail_of_each_asked_media(b, owner, outsider):
    one = make_asset(owner.org)
    two = make_asset(owner.org)
    make_asset(owner.org)
    theirs = make_asset(outsider.org)
    response = b.get(f"/api/media/thumbnails?ids={one.pk},med_{two.pk.hex},{theirs.pk}&sort=createdAt:asc")
    assert response.status_code == 200
    assert response.json() == {
        "data": [
            {
                "id": str(a.pk),
                "thumbnailUrl": f"{settings.PUBLIC_BASE_URL}{a.thumbnail.url}",
                "url": f"{settings.PUBLIC_BASE_URL}{a.file.url}",
            }
            for a in (one, two)
        ],
        "pagination": {"limit": 20, "offset": 0, "total": 2, "hasNext": False, "hasPrev": False},
    }


def test_thumbnails_refuse_a_malformed_id_list(b):
    response = b.get("/api/media/thumbnails?ids=abc,def")
    assert response.status_code == 400
    assert response.json() == {
        "error": "ids must be up to 100 media ids.",
        "details": {"code": "VALIDATION_ERROR", "ids": ["Invalid id list."]},
    }
    too_many = ",".join(str(uuid.uuid4()) for _ in range(101))
    assert b.get(f"/api/media/thumbnails?ids={too_many}").status_code == 400


def test_thumbnails_filter_by_kind_type_and_brand_as_the_media_list_does(b, owner):
    brand = BrandFactory(organization=owner.org)
    ref = make_asset(owner.org, kind=Kind.REFERENCE, brand=brand)
    plain = make_asset(owner.org)
    clip = make_asset(owner.org, brand=brand)
    MediaAsset.objects.filter(pk=clip.pk).update(media_type="video")

    def got(query):
        response = b.get(f"/api/media/thumbnails?sort=createdAt:asc&{query}")
        assert response.status_code == 200, response.content
        return [x["id"] for x in response.json()["data"]]

    assert got("kind=reference") == [str(ref.pk)]
    assert got("kind=upload") == [str(plain.pk), str(clip.pk)]
    assert got("type=video") == [str(clip.pk)]
    assert got(f"brandId={brand.pk}") == [str(ref.pk), str(clip.pk)]
    assert got(f"brandId={brand.pk}&kind=upload&ids={plain.pk},{clip.pk}") == [str(clip.pk)]


BAD_TYPE = {
    "error": "Unknown type.",
    "details": {"code": "VALIDATION_ERROR", "type": ["Must be image or video."]},
}
BAD_BRAND = {"error": "Unknown brand.", "details": {"code": "VALIDATION_ERROR", "brandId": ["Not found."]}}
BAD_KIND = {
    "error": "Unknown kind.",
    "details": {"code": "VALIDATION_ERROR", "kind": [f"Must be one of {', '.join(Kind.values)}."]},
}


@pytest.mark.parametrize("path", ["/api/media/reference-images", "/api/media/thumbnails"])
@pytest.mark.parametrize(
    ("query", "body"),
    [
        ("type=audio", BAD_TYPE),
        ("brandId=nope", BAD_BRAND),
        ("brandId=6f1c1e0a-5b1d-4c4e-9a57-000000000000", BAD_BRAND),
    ],
)
def test_the_reference_images_and_thumbnails_refuse_a_bad_type_or_brand(b, path, query, body):
    response = b.get(f"{path}?{query}")
    assert response.status_code == 400
    assert response.json() == body


def test_thumbnails_refuse_a_bad_kind_and_lists_refuse_another_organizations_brand(b, outsider):
    response = b.get("/api/media/thumbnails?kind=sticker")
    assert response.status_code == 400
    assert response.json() == BAD_KIND
    theirs = Brand.objects.get(organization=outsider.org, is_default=True)
    for path in ("/api/media/reference-images", "/api/media/thumbnails"):
        response = b.get(f"{path}?brandId={theirs.pk}")
        assert (response.status_code, response.json()) == (400, BAD_BRAND)


def test_the_media_lists_schema_names_the_filters_they_read(client):
    paths = client.get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json").json()["paths"]

    def params(path):
        return {p["name"]: p["schema"] for p in paths[path]["get"]["parameters"] if p["in"] == "query"}

    media = params("/media")
    for name in ("type", "brandId"):
        assert params("/media/reference-images")[name] == media[name]
    # reference images are all of kind reference: no `kind` to offer
    assert "kind" not in params("/media/reference-images")
    for name in ("kind", "type", "brandId"):
        assert params("/media/thumbnails")[name] == media[name]


def test_absolute_media_urls_come_from_public_base_url_not_the_host_header(b, owner, settings):
    settings.PUBLIC_BASE_URL = "https://posts.example.com"
    settings.ALLOWED_HOSTS = ["*"]  # even a server that answers every Host never echoes it
    asset = media_create_from_bytes(
        organization=owner.org,
        data=png_bytes((8, 8)),
        content_type="image/png",
        kind=Kind.UPLOAD,
        width=8,
        height=8,
        filename="host.png",
    )
    response = b.get(f"/api/media/{asset.pk}", HTTP_HOST="evil.example.net")
    assert response.status_code == 200
    assert response.json()["data"]["url"] == f"https://posts.example.com{asset.file.url}"
    assert "evil" not in response.content.decode()


def test_allowed_hosts_default_to_the_public_host_outside_development():
    import subprocess
    import sys

    from tests.live import ROOT, process_env

    code = "from django.conf import settings; print(sorted(settings.ALLOWED_HOSTS))"
    env = process_env(
        PUBLIC_BASE_URL="https://posts.example.com", DJANGO_SETTINGS_MODULE="config.settings", DEBUG="false"
    )
    env.pop("ALLOWED_HOSTS", None)
    # a deployment names its database; in the embedded default the suite hands its children none
    env.setdefault("DATABASE_URL", f"sqlite:///{ROOT / 'var' / 'deploy-check.sqlite3'}")
    run = subprocess.run(
        [sys.executable, "-c", f"import django; django.setup(); {code}"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    assert run.stdout.strip() == "['127.0.0.1', '[::1]', 'localhost', 'posts.example.com']"

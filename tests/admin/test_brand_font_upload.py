"""Issue 30: staff upload a brand's font in the admin (the same service and fontTools checks as
both API families); a refused font is a 400 naming the reason on the page, never a 500."""

from __future__ import annotations

from pathlib import Path

import pytest

from apps.accounts.services import organization_get_or_create
from apps.brands.models import Brand
from apps.media.models import Kind, MediaAsset
from tests.media.test_brand_fonts import latin_font

pytestmark = pytest.mark.django_db(transaction=True)

SCREENSHOTS = Path(__file__).resolve().parents[2] / "var" / "screenshots"
PAGE = "/admin/media/fonts/upload/"


def test_staff_upload_a_brand_font_in_chromium_and_a_restricted_one_is_refused(
    admin_page, live_server, tmp_path
):
    org = organization_get_or_create(name="Acme")
    brand = Brand.objects.get(organization=org, is_default=True)
    good, restricted = tmp_path / "CrumbBlock.ttf", tmp_path / "Locked.ttf"
    good.write_bytes(latin_font())
    restricted.write_bytes(latin_font(fs_type=2, family="Locked Sans"))

    admin_page.goto(f"{live_server.url}{PAGE}")
    admin_page.select_option("#id_brand", str(brand.pk))
    admin_page.set_input_files("#id_file", str(restricted))
    with admin_page.expect_response(lambda r: r.request.method == "POST") as answer:
        admin_page.click("input[type=submit]")
    assert answer.value.status == 400
    assert "forbids embedding" in admin_page.inner_text(".errornote")
    assert not MediaAsset.objects.filter(kind=Kind.FONT).exists()

    admin_page.select_option("#id_brand", str(brand.pk))
    admin_page.set_input_files("#id_file", str(good))
    with admin_page.expect_response(lambda r: r.request.method == "POST") as answer:
        admin_page.click("input[type=submit]")
    assert answer.value.status == 200
    assert "Crumb Block (latin)" in admin_page.inner_text(".messagelist")
    assert "CrumbBlock.ttf" in admin_page.inner_text("#brand-fonts")
    font = MediaAsset.objects.get(kind=Kind.FONT)
    assert (font.brand_id, font.organization_id) == (brand.pk, org.pk)
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    admin_page.screenshot(path=str(SCREENSHOTS / "admin-brand-font-upload.png"), full_page=True)


def test_a_broken_file_or_no_brand_is_a_400_on_the_page(client, django_user_model):
    from django.core.files.uploadedfile import SimpleUploadedFile

    user = django_user_model.objects.create_superuser("boss", "boss@example.com", "pass-boss-1")
    client.force_login(user)
    client.raise_request_exception = False
    org = organization_get_or_create(name="Acme")
    brand = Brand.objects.get(organization=org, is_default=True)
    broken = SimpleUploadedFile("x.ttf", b"\x00\x01\x00\x00" + b"\xff" * 80, content_type="font/ttf")
    answer = client.post(PAGE, {"brand": str(brand.pk), "file": broken})
    assert answer.status_code == 400
    assert b"could not be read" in answer.content or b"lacks the tables" in answer.content
    assert client.post(PAGE, {"brand": "not-a-uuid"}).status_code == 400
    assert not MediaAsset.objects.filter(kind=Kind.FONT).exists()

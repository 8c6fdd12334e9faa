"""Issue 30 against the real server: a brand font uploaded through both families to a uvicorn
process (multipart over HTTP), and a restricted one refused in each family's envelope."""

from __future__ import annotations

import pytest
import requests

from apps.accounts.services import api_key_create, organization_get_or_create
from apps.brands.models import Brand
from apps.media.models import Kind, MediaAsset
from tests.live import asgi_server
from tests.media.test_brand_fonts import latin_font

pytestmark = [pytest.mark.services, pytest.mark.django_db(transaction=True)]


def test_both_families_take_a_brand_font_over_http_and_refuse_a_restricted_one():
    org = organization_get_or_create(name="Acme")
    brand = Brand.objects.get(organization=org, is_default=True)
    key = api_key_create(organization=org, role="owner", name="fonts").secret
    auth = {"Authorization": f"Bearer {key}"}
    with asgi_server() as base:
        a = requests.post(
            f"{base}/v1/brands/brd_{brand.pk.hex}/assets",
            files={"file": ("Crumb.ttf", latin_font(), "font/ttf")},
            data={"type": "font"},
            headers=auth,
            timeout=30,
        )
        b = requests.post(
            f"{base}/api/media/upload",
            files={"file": ("Crumb2.ttf", latin_font(family="Crumb Body"), "font/ttf")},
            data={"kind": "font", "brandId": str(brand.pk)},
            headers=auth,
            timeout=30,
        )
        locked_a = requests.post(
            f"{base}/v1/brands/brd_{brand.pk.hex}/assets",
            files={"file": ("Locked.ttf", latin_font(fs_type=2), "font/ttf")},
            data={"type": "font"},
            headers=auth,
            timeout=30,
        )
        locked_b = requests.post(
            f"{base}/api/media/upload",
            files={"file": ("Locked.ttf", latin_font(fs_type=2), "font/ttf")},
            data={"kind": "font"},
            headers=auth,
            timeout=30,
        )
    assert a.status_code == 201, a.text
    assert a.json()["metadata"]["font"]["family"] == "Crumb Block"
    assert b.status_code == 201, b.text
    assert b.json()["data"]["font"]["family"] == "Crumb Body"
    assert locked_a.status_code == 400
    assert locked_a.json()["error"]["details"]["reason"] == "font_embedding_restricted"
    assert locked_b.status_code == 400
    assert locked_b.json()["details"]["reason"] == "font_embedding_restricted"
    assert MediaAsset.objects.filter(organization=org, kind=Kind.FONT).count() == 2

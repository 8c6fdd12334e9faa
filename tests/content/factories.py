"""Content in any status, as the pipeline or the status machine would leave it."""

from __future__ import annotations

from apps.content.models import Content, Variant
from apps.media.models import Kind
from apps.media.services import media_create_from_bytes
from tests.conftest import png_bytes
from tests.factories import BrandFactory


def make_content(
    org,
    *,
    status: str = "review",
    brand=None,
    profile=None,
    platforms=("instagram",),
    image: bool = True,
    caption: str = "Fresh autumn roast, out today.",
) -> Content:
    brand = brand or (profile.brand if profile else BrandFactory(organization=org))
    content = Content.objects.create(
        organization=org,
        brand=brand,
        profile=profile,
        platforms=list(platforms),
        prompt="Autumn roast launch",
        status=status,
        dimensions="4:5",
        progress=100 if status not in ("pending", "generating", "draft") else 0,
    )
    for platform in platforms:
        Variant.objects.create(content=content, platform=platform, caption=caption, hashtags=["#coffee"])
    if image:
        media_create_from_bytes(
            organization=org,
            data=png_bytes((40, 50)),
            content_type="image/png",
            kind=Kind.GENERATED,
            brand=brand,
            width=40,
            height=50,
            content=content,
        )
    return content

"""A designed post through the service: generated in one family and read in both, the brand's
logo on the picture, the alt text written from what was drawn, the style note, the layers edited
through the API (then undone), and progress reported while the media renders."""

from __future__ import annotations

import io

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from PIL import Image, ImageDraw

from apps.content.models import Content
from apps.generation.local_media.palette import darken
from apps.media.models import MediaAsset
from tests.factories import BrandFactory

pytestmark = pytest.mark.django_db

BRIEF = (
    "Spring sale at Crumb Co: 20% off every sourdough loaf with code SPRING20 until Sunday. "
    "Our bakery on Rue Verte also bakes croissants and rye. Parking is free behind the old church."
)


def _logo_file() -> SimpleUploadedFile:
    img = Image.new("RGBA", (200, 80), (0, 0, 0, 0))
    d = ImageDraw.Draw(img)
    d.ellipse((0, 0, 80, 80), fill=(20, 110, 90, 255))
    d.rectangle((95, 20, 195, 60), fill=(230, 60, 40, 255))
    buf = io.BytesIO()
    img.save(buf, "PNG")
    return SimpleUploadedFile("logo.png", buf.getvalue(), content_type="image/png")


@pytest.fixture
def brand(owner):
    brand = BrandFactory(
        organization=owner.org, name="Crumb Co", primary_color="#7A3E2B", secondary_color="#F2C572"
    )
    client = owner.token_client(subject="pictures-owner")
    assert (
        client.post(f"/api/brands/{brand.pk}/logo", {"file": _logo_file()}, format="multipart").status_code
        == 201
    )
    return brand


def _generate(
    api,
    brand,
    django_capture_on_commit_callbacks,
    *,
    style: str,
    platforms: tuple[str, ...] = ("instagram", "linkedin"),
) -> dict:
    with django_capture_on_commit_callbacks(execute=True):
        response = api.post(
            "/v1/content/generate",
            {
                "prompt": BRIEF,
                "platforms": list(platforms),
                "settings": {"brandId": f"brd_{brand.pk.hex}", "language": "en"},
                "media": {"generate": True, "style": style, "count": 1},
            },
            format="json",
        )
    assert response.status_code == 202, response.content
    return api.get(f"/v1/content/{response.json()['id']}").json()


def test_a_generated_post_is_designed_described_and_noted_in_both_families(
    api, owner, brand, django_capture_on_commit_callbacks
):
    body = _generate(api, brand, django_capture_on_commit_callbacks, style="photorealistic")
    assert body["status"] == "generated"
    asset = MediaAsset.objects.get(pk=body["media"][0]["id"].removeprefix("med_"))
    design = asset.metadata["design"]
    assert design["template"] == "offer" and design["badge"] == "SPRING20"
    # the offer is the hero, its code a chip (issue 30: the message from the brief's own words)
    assert (
        design["message"]["hero"] == "20% off every sourdough loaf"
        and "SPRING20" in design["message"]["chips"]
    )
    alt = asset.metadata["altText"]
    assert alt.startswith("Offer graphic in brown and ")
    assert "SPRING20" in alt and "The Crumb Co logo in the top corner." in alt
    drawn = f"{design['headline']} {design['sub']}"
    assert f'Text: "{design["headline"]}".' in alt and design["headline"] in drawn
    for noun in ("Parking", "church"):  # in the brief, not on the picture
        assert noun not in drawn and noun.lower() not in alt.lower()
    note = (
        'style "photorealistic" needs an image model: the local engine drew a designed offer graphic instead '
        "(set GENERATION_ENGINE to openai, gemini or replicate for photographs)"
    )
    for variant in body["content"].values():
        assert variant["altText"] == alt
        assert note in variant["adaptations"]
    content = Content.objects.get(pk=body["id"][4:])
    family_b = owner.token_client(subject="pictures-owner").get(f"/api/content/{content.pk}").json()["data"]
    for variant in family_b["content"].values():  # Family B says the same
        assert note in variant["adaptations"] and variant["altText"] == alt
    with asset.file.open("rb") as fh, Image.open(io.BytesIO(fh.read())) as img:
        assert img.size == (body["media"][0]["dimensions"]["width"], body["media"][0]["dimensions"]["height"])


def test_a_short_platform_first_sets_its_hook_not_its_whole_post(
    api, brand, django_capture_on_commit_callbacks
):
    """X's post is one paragraph (hook and facts): the picture took all of it as its headline
    and set the first fact under it again (found looking at 30 pictures of new briefs)."""
    body = _generate(api, brand, django_capture_on_commit_callbacks, style="illustration", platforms=("x",))
    design = MediaAsset.objects.get(pk=body["media"][0]["id"].removeprefix("med_")).metadata["design"]
    caption = body["content"]["x"]["caption"]
    assert design["headline"] != caption.split(" #")[0]
    assert design["sub"] not in design["headline"] and design["headline"] not in design["sub"]
    assert design["headline"] == "20% off every sourdough loaf" and "SPRING20" in design["message"]["chips"]


def test_illustration_carries_no_note(api, brand, django_capture_on_commit_callbacks):
    body = _generate(api, brand, django_capture_on_commit_callbacks, style="illustration")
    for variant in body["content"].values():
        assert not any("photorealistic" in a for a in variant["adaptations"])


def test_the_headline_and_colours_are_edited_on_their_layers_and_undone(
    api, owner, brand, django_capture_on_commit_callbacks
):
    body = _generate(api, brand, django_capture_on_commit_callbacks, style="illustration")
    content = Content.objects.get(pk=body["id"][4:])
    # Instagram's 4:5 and LinkedIn's 1.91:1 pictures (issue 30); an edit by prompt edits the
    # first platform's
    original, linkedin = MediaAsset.objects.filter(content=content, kind="generated").order_by("position")
    assert (original.ratio, linkedin.ratio) == ("4:5", "1.91:1")
    b = owner.token_client(subject="pictures-owner")
    edited = b.post(
        f"/api/content/{content.pk}/edit-image",
        {"prompt": 'headline "Two days left: 20% off", primary colour #0B6E4F'},
        format="json",
    )
    assert edited.status_code == 200, edited.content
    new = MediaAsset.objects.get(pk=edited.json()["data"]["mediaAssets"][0]["id"])
    assert new.ratio == "4:5"  # still Instagram's picture
    assert new.metadata["design"]["headline"] == "Two days left: 20% off"
    assert new.metadata["design"]["colours"]["primary"] == "#0B6E4F"
    assert 'Text: "Two days left: 20% off".' in new.metadata["altText"]
    assert all(v.alt_text == new.metadata["altText"] for v in content.variants.all())
    with new.file.open("rb") as fh, Image.open(io.BytesIO(fh.read())) as img:
        rgb = img.convert("RGB")
        # the new main colour (or its dark shade, the panel layout's ground) fills the offer; the
        # light layout sets it in the kicker, the pill and the icon; the old one is gone
        mains = {(11, 110, 79), darken((11, 110, 79), 0.55)}
        colours = rgb.getcolors(rgb.width * rgb.height)
        share = sum(c for c, colour in colours if colour in mains) / (rgb.width * rgb.height)
        assert share > (0.001 if new.metadata["design"]["variant"] == "light" else 0.3)
        assert not any(colour in {(122, 62, 43), darken((122, 62, 43), 0.55)} for _, colour in colours)
    undone = b.post(f"/api/content/{content.pk}/edit-image/undo")
    assert [m["id"] for m in undone.json()["data"]["mediaAssets"]] == [str(original.pk), str(linkedin.pk)]


def test_a_layout_it_does_not_know_is_a_clear_4xx(api, owner, brand, django_capture_on_commit_callbacks):
    body = _generate(api, brand, django_capture_on_commit_callbacks, style="illustration")
    response = api.post(f"/v1/content/{body['id']}/edit-image", {"prompt": "layout mosaic"}, format="json")
    assert 400 <= response.status_code < 500
    assert "the layouts are: announcement, offer, event, quote, product, hiring, recipe, notice" in str(
        response.json()
    )

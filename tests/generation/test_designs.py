"""Variety and choice (issue 30): a designed picture in three layouts, previewed side by side,
one chosen (every platform's picture redrawn in it, the words kept, the history told), and
the "new design" through both families' `regenerate` with `scope: image`."""

from __future__ import annotations

import io

import numpy as np
import pytest
from PIL import Image

from apps.content import ports
from apps.content.models import Content
from apps.generation.designs import DESIGNS, design_apply, design_previews
from apps.generation.local_media.poster import VARIANTS
from apps.media.models import MediaAsset
from tests.content.factories import make_content
from tests.factories import BrandFactory

pytestmark = pytest.mark.django_db

BRIEF = (
    "Spring sale at Crumb Co: 20% off every sourdough loaf with code SPRING20 until Sunday. "
    "Our bakery on Rue Verte also bakes croissants and rye."
)


def _generate(api, owner, django_capture_on_commit_callbacks) -> Content:
    brand = BrandFactory(
        organization=owner.org, name="Crumb Co", primary_color="#7A3E2B", secondary_color="#F2C572"
    )
    with django_capture_on_commit_callbacks(execute=True):
        response = api.post(
            "/v1/content/generate",
            {
                "prompt": BRIEF,
                "platforms": ["instagram", "linkedin"],
                "settings": {"brandId": f"brd_{brand.pk.hex}", "language": "en"},
                "media": {"generate": True, "style": "illustration", "count": 1},
            },
            format="json",
        )
    assert response.status_code == 202, response.content
    content = Content.objects.get(pk=response.json()["id"].removeprefix("cnt_"))
    assert content.status == "review"
    return content


def _pixels(data: bytes) -> np.ndarray:
    """A perceptual fingerprint: the picture in 32x32 grayscale, 0..1."""
    with Image.open(io.BytesIO(data)) as img:
        return np.asarray(img.convert("L").resize((32, 32), Image.Resampling.BILINEAR), dtype=float) / 255


def _data_uri_bytes(uri: str) -> bytes:
    import base64

    return base64.b64decode(uri.split(",", 1)[1])


def _pictures(content: Content) -> list[MediaAsset]:
    return list(MediaAsset.objects.filter(content=content, kind="generated").order_by("position", "ratio"))


def _captions(content: Content) -> dict[str, tuple[str, list[str]]]:
    return {v.platform: (v.caption, v.hashtags) for v in content.variants.all()}


def test_the_layouts_are_the_pictures_engines_and_the_ports(db):
    assert DESIGNS == VARIANTS == ports.DESIGNS == ("panel", "light", "type")


def test_three_previews_differ_and_choosing_one_redraws_every_platforms_picture(
    api, owner, django_capture_on_commit_callbacks
):
    content = _generate(api, owner, django_capture_on_commit_callbacks)
    before = _pictures(content)
    assert sorted(p.ratio for p in before) == ["1.91:1", "4:5"]
    now = before[0].metadata["design"]["variant"]
    captions = _captions(content)

    previews = design_previews(content)
    assert [p.design for p in previews] == ["panel", "light", "type"]
    assert [p.current for p in previews] == [d == now for d in DESIGNS]
    # the first platform's shape (Instagram's 4:5), 400 px wide
    assert {(p.width, p.height) for p in previews} == {(400, 500)}
    prints = [_pixels(_data_uri_bytes(p.data_uri)) for p in previews]
    for i in range(3):
        for j in range(i + 1, 3):
            distance = float(np.abs(prints[i] - prints[j]).mean())
            assert distance > 0.15, (previews[i].design, previews[j].design, distance)
    assert MediaAsset.objects.filter(content=content).count() == len(before)  # nothing stored

    chosen = next(d for d in DESIGNS if d != now)
    created = design_apply(content.pk, chosen, actor="sam")
    assert created is not None
    after = _pictures(content)
    assert {p.pk for p in after}.isdisjoint({p.pk for p in before})  # replaced
    assert sorted((p.ratio, p.position, p.width, p.height) for p in after) == sorted(
        (p.ratio, p.position, p.width, p.height) for p in before
    )
    assert {p.metadata["design"]["variant"] for p in after} == {chosen}
    assert {p.metadata["chosenDesign"] for p in after} == {chosen}
    # the stored 4:5 picture is the preview of the chosen layout (drawn large, then scaled)
    first = next(p for p in after if p.ratio == "4:5")
    with first.file.open("rb") as fh:
        stored = fh.read()
    chosen_print = prints[DESIGNS.index(chosen)]
    assert float(np.abs(_pixels(stored) - chosen_print).mean()) < 0.02
    content.refresh_from_db()
    assert content.status == "review"
    assert _captions(content) == captions  # the words are kept
    # the alt text describes what is drawn now
    assert {v.alt_text for v in content.variants.all()} <= {p.metadata["altText"] for p in after}
    entry = content.history.get(action="design")
    assert (entry.actor, entry.note) == ("sam", f"design changed to {chosen}")
    assert entry.changes == {"design": {"before": now, "after": chosen}}


@pytest.mark.parametrize("family", ["v1", "api"])
def test_a_new_design_through_regenerate_keeps_the_words_in_both_families(
    api, owner, django_capture_on_commit_callbacks, family
):
    content = _generate(api, owner, django_capture_on_commit_callbacks)
    now = _pictures(content)[0].metadata["design"]["variant"]
    captions = _captions(content)
    client = api if family == "v1" else owner.token_client(subject="designer")
    url = f"/v1/content/cnt_{content.pk.hex}" if family == "v1" else f"/api/content/{content.pk}"

    response = client.post(f"{url}/regenerate", {"scope": "image"}, format="json")
    assert response.status_code == 200, response.content
    body = response.json() if family == "v1" else response.json()["data"]
    expected_next = DESIGNS[(DESIGNS.index(now) + 1) % 3]
    assert body["status"] == ("generated" if family == "v1" else "reviewing")
    assert {p.metadata["design"]["variant"] for p in _pictures(content)} == {expected_next}
    media = body["media"] if family == "v1" else body["mediaAssets"]
    shown = {(m["id"].removeprefix("med_") if family == "v1" else m["id"]) for m in media}
    assert shown == {p.pk.hex if family == "v1" else str(p.pk) for p in _pictures(content)}

    chosen = client.post(f"{url}/regenerate", {"scope": "image", "design": now}, format="json")
    assert chosen.status_code == 200, chosen.content
    assert {p.metadata["design"]["variant"] for p in _pictures(content)} == {now}
    content.refresh_from_db()
    assert _captions(content) == captions and content.status == "review"
    assert [h.note for h in content.history.filter(action="design").order_by("created_at")] == [
        f"design changed to {expected_next}",
        f"design changed to {now}",
    ]


@pytest.mark.parametrize("family", ["v1", "api"])
def test_new_design_bad_input_and_undesigned_pictures_are_clear_errors(api, owner, family):
    content = make_content(owner.org)  # a plain picture: no design to redraw
    client = api if family == "v1" else owner.token_client(subject="designer")
    url = f"/v1/content/cnt_{content.pk.hex}" if family == "v1" else f"/api/content/{content.pk}"
    unknown = client.post(f"{url}/regenerate", {"scope": "image", "design": "mosaic"}, format="json")
    assert unknown.status_code == 400
    assert "design" in str(unknown.json())
    lone = client.post(f"{url}/regenerate", {"design": "panel"}, format="json")
    assert lone.status_code == 400
    assert "Only with scope 'image'." in str(lone.json())
    mixed = client.post(f"{url}/regenerate", {"scope": "image", "intent": "offer"}, format="json")
    assert mixed.status_code == 400
    assert "Only with scope 'all'" in str(mixed.json())
    plain = client.post(f"{url}/regenerate", {"scope": "image"}, format="json")
    assert plain.status_code == (400 if family == "v1" else 422)
    assert "was not drawn by the designer" in str(plain.json())
    content.refresh_from_db()
    assert content.status == "review"
    assert not content.history.filter(action="design").exists()


def test_a_new_design_is_refused_outside_review_and_for_another_organization(api, owner):
    from tests.conftest import make_persona

    approved = make_content(owner.org, status="approved")
    response = api.post(f"/v1/content/cnt_{approved.pk.hex}/regenerate", {"scope": "image"}, format="json")
    assert response.status_code == 409
    other = make_persona("Other", "owner")
    theirs = make_content(other.org)
    assert api.post(f"/v1/content/cnt_{theirs.pk.hex}/regenerate", {"scope": "image"}).status_code == 404
    b = owner.token_client(subject="designer")
    assert (
        b.post(f"/api/content/{theirs.pk}/regenerate", {"scope": "image"}, format="json").status_code == 404
    )


def test_regenerate_without_a_body_still_regenerates_everything(api, owner):
    content = make_content(owner.org)
    response = api.post(f"/v1/content/cnt_{content.pk.hex}/regenerate")
    assert response.status_code == 202
    assert response.json()["status"] == "pending"

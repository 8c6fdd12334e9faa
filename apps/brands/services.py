"""Brand writes and the settings merge (post > profile > brand > system)."""

from __future__ import annotations

import copy
import re

from django.db import IntegrityError, transaction
from django.utils.text import slugify

from apps.core.errors import Conflict, InvalidSubject
from apps.events.services import event_record

from .models import Brand
from .signals import brand_retiring

HEX_COLOR = re.compile(r"^#[0-9A-Fa-f]{6}$")

#: System defaults for generation settings (the lowest layer of the merge).
SETTINGS_DEFAULTS: dict = {
    "system_prompt": "",
    "caption_style": "",
    "brand_voice": "",
    "temperature": 0.7,
    "themes": [],
    "audience": "",
    "hashtags": [],
    "guidelines": {"do": [], "dont": []},
    "require_approval": False,
    "auto_publish": False,
    "default_platform_settings": {},
    # post-level knobs that may also be set at brand/profile level
    "tone": "friendly",
    "length": "medium",
    "creativity": 5,
    "include_hashtags": True,
    "hashtag_count": 5,
    "include_emojis": True,
    "language": "en",
}

BRAND_FIELDS = (
    "name",
    "description",
    "voice",
    "tone",
    "primary_color",
    "secondary_color",
    "hashtags",
    "fonts",
    "settings",
    "metadata",
)


def _unique_slug(organization, base: str, *, exclude_pk=None) -> str:
    base = slugify(base)[:90] or "brand"
    slug, n = base, 2
    qs = Brand.objects.for_organization(organization)
    if exclude_pk:
        qs = qs.exclude(pk=exclude_pk)
    while qs.filter(slug=slug).exists():
        slug, n = f"{base}-{n}", n + 1
    return slug


def brand_ensure_default(*, organization) -> Brand:
    brand = Brand.objects.for_organization(organization).filter(is_default=True).first()
    if brand is None:
        brand = Brand.objects.create(
            organization=organization,
            name=f"{organization.name}",
            slug=_unique_slug(organization, organization.name),
            is_default=True,
        )
    return brand


def _normalize_hashtags(tags) -> list[str]:
    out: list[str] = []
    for tag in tags or []:
        word = str(tag).strip().lstrip("#")
        if word and f"#{word}".lower() not in {t.lower() for t in out}:
            out.append(f"#{word}")
    return out


def _apply(brand: Brand, fields: dict) -> None:
    for name in ("primary_color", "secondary_color"):
        value = fields.get(name)
        if value and not HEX_COLOR.match(value):
            raise InvalidSubject("Colours must be hex #RRGGBB.", name, "Must be #RRGGBB.")
    if "logo" in fields:
        logo = fields["logo"]
        if logo is not None and (logo.organization_id != brand.organization_id or logo.media_type != "image"):
            raise InvalidSubject(
                "The logo must be an image asset of this organization.", "logo", "Invalid asset."
            )
        brand.logo = logo
        if logo is not None:
            brand.logo_url = ""  # an uploaded logo replaces a logo URL
    if "logo_url" in fields:
        brand.logo_url = fields["logo_url"] or ""
        if brand.logo_url:
            brand.logo = None
    if "link_tracking" in fields:
        from .link_tracking import link_tracking_clean

        brand.link_tracking = link_tracking_clean(value=fields["link_tracking"], current=brand.link_tracking)
    for name, value in fields.items():
        if name in BRAND_FIELDS:
            setattr(brand, name, _normalize_hashtags(value) if name == "hashtags" else value)


@transaction.atomic
def brand_create(*, organization, actor=None, slug: str | None = None, **fields) -> Brand:
    brand = Brand(organization=organization)
    _apply(brand, fields)
    if slug:
        if Brand.objects.for_organization(organization).filter(slug=slug).exists():
            raise Conflict(f"A brand with slug '{slug}' already exists.", {"slug": slug})
        brand.slug = slug
    else:
        brand.slug = _unique_slug(organization, brand.name)
    try:
        with transaction.atomic():
            brand.save()
    except IntegrityError:
        raise Conflict(f"A brand with slug '{brand.slug}' already exists.", {"slug": brand.slug}) from None
    event_record(organization=organization, type="brand.created", data={"brandId": str(brand.pk)})
    return brand


@transaction.atomic
def brand_update(*, brand: Brand, slug: str | None = None, **fields) -> Brand:
    brand = Brand.objects.select_for_update().get(pk=brand.pk)
    _apply(brand, fields)
    if slug and slug != brand.slug:
        if (
            Brand.objects.for_organization(brand.organization_id)
            .filter(slug=slug)
            .exclude(pk=brand.pk)
            .exists()
        ):
            raise Conflict(f"A brand with slug '{slug}' already exists.", {"slug": slug})
        brand.slug = slug
    brand.save()
    return brand


@transaction.atomic
def brand_delete(*, brand: Brand) -> None:
    """Delete a brand; its profiles and content move to the organization's default brand."""
    if brand.is_default:
        raise Conflict("The default brand cannot be deleted.", {"brandId": str(brand.pk)})
    default = brand_ensure_default(organization=brand.organization)
    # profiles, content and the content's media move to the default brand, each app through
    # its own service (the brand's own logo and reference images go with the brand)
    brand_retiring.send(sender=Brand, brand=brand, successor=default)
    brand.delete()


def deep_merge(base: dict, override: dict) -> dict:
    out = copy.deepcopy(base)
    for key, value in (override or {}).items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = deep_merge(out[key], value)
        else:
            out[key] = copy.deepcopy(value)
    return out


@transaction.atomic
def brand_settings_update(*, brand: Brand, settings: dict, replace: bool = False) -> Brand:
    brand = Brand.objects.select_for_update().get(pk=brand.pk)
    brand.generation_settings = dict(settings) if replace else deep_merge(brand.generation_settings, settings)
    if "hashtags" in brand.generation_settings:
        brand.generation_settings["hashtags"] = _normalize_hashtags(brand.generation_settings["hashtags"])
    brand.save(update_fields=["generation_settings", "updated_at"])
    return brand


def brand_settings_full(brand: Brand) -> dict:
    """The brand's generation settings over the system defaults (what the API shows)."""
    keys = (
        "system_prompt",
        "caption_style",
        "brand_voice",
        "temperature",
        "themes",
        "audience",
        "hashtags",
        "guidelines",
        "require_approval",
        "auto_publish",
        "default_platform_settings",
    )
    merged = deep_merge({k: SETTINGS_DEFAULTS[k] for k in keys}, brand.generation_settings)
    return {k: merged[k] for k in keys}


def _brand_layer(brand: Brand) -> dict:
    layer = dict(brand.generation_settings)
    if brand.voice and not layer.get("brand_voice"):
        layer["brand_voice"] = brand.voice
    if brand.hashtags and not layer.get("hashtags"):
        layer["hashtags"] = list(brand.hashtags)
    if brand.tone and "tone" not in layer:
        layer["tone"] = brand.tone[0]
    return layer


def effective_settings(*, brand: Brand, profile=None, post: dict | None = None) -> tuple[dict, dict]:
    """Merge system < brand < profile < post; return (values, source of each top-level key)."""
    layers = [("system", SETTINGS_DEFAULTS), ("brand", _brand_layer(brand))]
    if profile is not None:
        profile_layer = dict(profile.generation_settings or {})
        if profile.settings.get("autoHashtags"):
            profile_layer.setdefault("hashtags", list(profile.settings["autoHashtags"]))
        layers.append(("profile", profile_layer))
    if post:
        layers.append(("post", post))
    values: dict = {}
    sources: dict = {}
    for name, layer in layers:
        for key, value in layer.items():
            if isinstance(value, dict) and isinstance(values.get(key), dict):
                values[key] = deep_merge(values[key], value)
            else:
                values[key] = copy.deepcopy(value)
            sources[key] = name
    return values, sources

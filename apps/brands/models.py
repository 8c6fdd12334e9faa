"""Brands: voice, guidelines, colours, generation settings and approval rules."""

from __future__ import annotations

from django.db import models

from apps.core.models import OrgQuerySet, OrgScopedModel


class BrandQuerySet(OrgQuerySet):
    pass


class Brand(OrgScopedModel):
    #: a brand-limited caller sees its brands (apps.core.scoping)
    brand_scope_paths: tuple[str, ...] = ("pk",)
    name = models.CharField(max_length=200)
    slug = models.SlugField(max_length=100)
    description = models.TextField(blank=True, default="")
    voice = models.TextField(blank=True, default="")
    tone = models.JSONField(default=list, blank=True)
    primary_color = models.CharField(max_length=7, blank=True, default="")
    secondary_color = models.CharField(max_length=7, blank=True, default="")
    hashtags = models.JSONField(default=list, blank=True)
    fonts = models.JSONField(default=list, blank=True)
    logo = models.ForeignKey(
        "media.MediaAsset", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    # a logo given as an https URL (Family A `assets.logo`) instead of an uploaded asset
    logo_url = models.URLField(max_length=2000, blank=True, default="")
    #: Family B generation settings, with the spec's snake_case keys (see services.SETTINGS_DEFAULTS)
    generation_settings = models.JSONField(default=dict, blank=True)
    #: free-form Family B `settings` and `metadata`
    settings = models.JSONField(default=dict, blank=True)
    metadata = models.JSONField(default=dict, blank=True)
    is_default = models.BooleanField(default=False)
    #: tracked links: UTM templates and short links (apps.brands.link_tracking)
    link_tracking = models.JSONField(default=dict, blank=True)

    objects = BrandQuerySet.as_manager()

    class Meta:
        ordering = ["name"]
        indexes = [models.Index(fields=["organization", "-created_at"], name="brand_org_created_idx")]
        constraints = [
            models.UniqueConstraint(fields=["organization", "slug"], name="brand_unique_slug_per_org"),
            models.UniqueConstraint(
                fields=["organization"], condition=models.Q(is_default=True), name="brand_one_default_per_org"
            ),
        ]

    def __str__(self) -> str:
        return self.name

    @property
    def require_approval(self) -> bool:
        return bool(self.generation_settings.get("require_approval", False))

    @property
    def auto_publish(self) -> bool:
        return bool(self.generation_settings.get("auto_publish", False))

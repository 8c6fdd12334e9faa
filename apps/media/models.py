"""Media assets: uploads, generated media, brand reference images and logos, backups."""

from __future__ import annotations

from django.db import models

from apps.core.models import OrgQuerySet, OrgScopedModel


class Kind(models.TextChoices):
    UPLOAD = "upload", "Upload"
    GENERATED = "generated", "Generated"
    REFERENCE = "reference", "Reference image"
    LOGO = "logo", "Logo"
    BACKUP = "backup", "Backup of an edited image"
    ASSET = "asset", "Brand asset"
    FONT = "font", "Brand font"


class MediaQuerySet(OrgQuerySet):
    def references_for_brand(self, brand):
        return self.filter(brand=brand, kind=Kind.REFERENCE)


def _upload_to(instance, filename: str) -> str:
    return f"org/{instance.organization_id.hex}/{instance.kind}/{instance.pk.hex}/{filename}"


def _thumb_to(instance, filename: str) -> str:
    return f"org/{instance.organization_id.hex}/{instance.kind}/{instance.pk.hex}/thumb-{filename}"


class MediaAsset(OrgScopedModel):
    #: media of its brands, or of their content (apps.core.scoping)
    brand_scope_paths: tuple[str, ...] = ("brand", "content__brand")
    brand = models.ForeignKey(
        "brands.Brand", null=True, blank=True, on_delete=models.CASCADE, related_name="media"
    )
    #: the content this media belongs to (generated media, edits' backups, the client's uploads)
    content = models.ForeignKey(
        "content.Content", null=True, blank=True, on_delete=models.CASCADE, related_name="media_assets"
    )
    position = models.PositiveSmallIntegerField(default=0)
    #: the aspect ratio this generated media was drawn for ("16:9", "2:3", ...): the content's
    #: variants of that ratio show it; "" = shared by every platform (uploads, videos, edits' sources)
    ratio = models.CharField(max_length=8, blank=True, default="")
    kind = models.CharField(max_length=12, choices=Kind.choices, default=Kind.UPLOAD, db_index=True)
    media_type = models.CharField(max_length=8, default="image")  # image, video
    file = models.FileField(upload_to=_upload_to, max_length=500)
    thumbnail = models.FileField(upload_to=_thumb_to, max_length=500, blank=True)
    content_type = models.CharField(max_length=100)
    size = models.PositiveBigIntegerField(default=0)
    width = models.PositiveIntegerField(null=True, blank=True)
    height = models.PositiveIntegerField(null=True, blank=True)
    duration = models.FloatField(null=True, blank=True)
    original_filename = models.CharField(max_length=255, blank=True, default="")
    sha256 = models.CharField(max_length=64, blank=True, default="")
    metadata = models.JSONField(default=dict, blank=True)

    objects = MediaQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at"]
        indexes = [
            models.Index(fields=["organization", "kind", "-created_at"], name="media_org_kind_idx"),
            models.Index(fields=["organization", "-created_at"], name="media_org_created_idx"),
        ]

    def __str__(self) -> str:
        return f"{self.kind}:{self.original_filename or self.pk}"

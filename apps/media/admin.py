from django.contrib import admin
from django.utils.html import format_html

from apps.accounts.admin_scope import StaffScopedAdmin

from .models import MediaAsset


@admin.register(MediaAsset)
class MediaAssetAdmin(StaffScopedAdmin):
    list_display = [
        "preview",
        "original_filename",
        "kind",
        "media_type",
        "organization",
        "size",
        "width",
        "height",
        "created_at",
    ]
    list_filter = ["kind", "media_type", "organization"]
    search_fields = ["original_filename", "sha256"]
    list_select_related = ["organization"]

    @admin.display(description="Preview")
    def preview(self, obj):
        if obj.thumbnail:
            return format_html(
                '<img src="{}" style="max-height:48px;max-width:80px" alt="">', obj.thumbnail.url
            )
        return "-"

import uuid

from django.contrib import admin
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse
from django.template.response import TemplateResponse
from django.utils.html import format_html

from apps.accounts.admin_scope import StaffScopedAdmin
from apps.core.admin_site import register_page

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


# --------------------------------------------------------------------------- brand fonts (issue 30)

FONT_LIST = 50


def font_upload_view(request: HttpRequest) -> HttpResponse:
    """Upload a brand's font (the same service and checks as both API families): a refusal is
    shown on the page with a 400, never a 500."""
    from django.conf import settings

    from apps.accounts.staff import staff_scope
    from apps.brands.models import Brand
    from apps.core.errors import ApplicationError, PayloadTooLarge

    from .models import Kind
    from .services import media_upload

    if not request.user.has_perm("media.add_mediaasset"):
        raise PermissionDenied
    brands = staff_scope(Brand.objects.select_related("organization"), request.user).order_by(
        "organization__name", "name"
    )
    status, error, saved, chosen = 200, "", None, request.POST.get("brand", "")
    if request.method == "POST":
        brand = brands.filter(pk=chosen).first() if _is_uuid(chosen) else None
        if brand is None:
            status, error = 400, "Choose a brand."
        else:
            try:
                saved = media_upload(
                    organization=brand.organization,
                    uploaded=request.FILES.get("file"),
                    kind=Kind.FONT,
                    brand=brand,
                )
            except ApplicationError as exc:
                status, error = (413 if isinstance(exc, PayloadTooLarge) else 400), exc.message
    fonts = (
        staff_scope(MediaAsset.objects.filter(kind=Kind.FONT), request.user)
        .select_related("brand")
        .order_by("-created_at")[:FONT_LIST]
    )
    limit = f"{settings.UPLOAD_MAX_FONT_BYTES // (1024 * 1024)} MB"
    context = {
        **admin.site.each_context(request),
        "title": "Upload a brand font",
        "brands": brands,
        "chosen": chosen,
        "error": error,
        "saved": saved,
        "fonts": fonts,
        "limit": limit,
    }
    return TemplateResponse(request, "admin/media/font_upload.html", context, status=status)


def _is_uuid(value: str) -> bool:
    try:
        uuid.UUID(value)
    except ValueError:
        return False
    return True


register_page("media/fonts/upload/", font_upload_view, name="media_font_upload")

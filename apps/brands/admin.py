from typing import Any

from django import forms
from django.contrib import admin

from apps.accounts.admin_scope import StaffScopedAdmin
from apps.core.errors import ValidationFailed

from .link_tracking import link_tracking_clean
from .models import Brand


class BrandAdminForm(forms.ModelForm):
    class Meta:
        model = Brand
        fields = "__all__"  # noqa: DJ007 -- the admin shows every field of the brand, as before
        help_texts = {
            "link_tracking": 'Tracked links: {"enabled": true, "utm": {"utm_source": "{platform}"}, '
            '"platforms": {"x": {...}}, "shortLinks": true}; placeholders {platform}, {brand}, '
            "{content_id}, {campaign} (README, Tracked links)."
        }

    def clean_link_tracking(self) -> dict[str, Any]:
        value = self.cleaned_data.get("link_tracking") or {}
        try:
            return link_tracking_clean(value=value)
        except ValidationFailed as exc:
            raise forms.ValidationError(f"{exc.message} {exc.details}") from None


@admin.register(Brand)
class BrandAdmin(StaffScopedAdmin):
    form = BrandAdminForm
    list_display = ["name", "organization", "slug", "is_default", "created_at"]
    list_filter = ["organization", "is_default"]
    search_fields = ["name", "slug", "organization__name"]
    list_select_related = ["organization"]

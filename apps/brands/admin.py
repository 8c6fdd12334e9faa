from django.contrib import admin

from apps.accounts.admin_scope import StaffScopedAdmin

from .models import Brand


@admin.register(Brand)
class BrandAdmin(StaffScopedAdmin):
    list_display = ["name", "organization", "slug", "is_default", "created_at"]
    list_filter = ["organization", "is_default"]
    search_fields = ["name", "slug", "organization__name"]
    list_select_related = ["organization"]

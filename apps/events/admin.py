from django.contrib import admin

from apps.accounts.admin_scope import StaffScopedAdmin

from .models import Event


@admin.register(Event)
class EventAdmin(StaffScopedAdmin):
    list_display = ["type", "organization", "created_at", "dispatched_at"]
    list_filter = ["type", "organization"]
    readonly_fields = ["type", "organization", "data", "created_at", "dispatched_at"]

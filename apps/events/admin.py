from django.contrib import admin

from .models import Event


@admin.register(Event)
class EventAdmin(admin.ModelAdmin):
    list_display = ["type", "organization", "created_at", "dispatched_at"]
    list_filter = ["type", "organization"]
    readonly_fields = ["type", "organization", "data", "created_at", "dispatched_at"]

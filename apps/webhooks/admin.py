import json

from django.contrib import admin, messages
from django.db.models import Count
from django.urls import reverse
from django.utils.html import format_html

from apps.accounts.admin_scope import StaffScopedAdmin

from . import services
from .models import InboundWebhook, WebhookAttempt, WebhookDelivery, WebhookEndpoint


@admin.register(WebhookEndpoint)
class WebhookEndpointAdmin(StaffScopedAdmin):
    list_display = [
        "url",
        "organization",
        "active",
        "deliveries",
        "failing_since",
        "disabled_reason",
        "disabled_at",
    ]
    list_filter = ["active", "organization"]
    readonly_fields = [
        "secret",
        "previous_secret",
        "previous_secret_expires_at",
        "disabled_at",
        "failing_since",
        "deliveries",
    ]
    search_fields = ["url"]

    def get_queryset(self, request):
        return super().get_queryset(request).annotate(delivery_count=Count("deliveries"))

    @admin.display(description="Deliveries", ordering="delivery_count")
    def deliveries(self, endpoint) -> str:
        """A link to this endpoint's delivery log."""
        url = reverse("admin:webhooks_webhookdelivery_changelist") + f"?endpoint__id__exact={endpoint.pk}"
        count = getattr(endpoint, "delivery_count", None)
        if count is None:
            count = endpoint.deliveries.count()
        return format_html(
            '<a href="{}" class="pf-deliveries">{} deliver{}</a>', url, count, "y" if count == 1 else "ies"
        )


class AttemptInline(admin.TabularInline):
    model = WebhookAttempt
    extra = 0
    can_delete = False
    readonly_fields = ["started_at", "status_code", "latency_ms", "error", "response_body"]

    def has_add_permission(self, request, obj=None) -> bool:
        return False  # a log: attempts are recorded by the sender only


@admin.register(WebhookDelivery)
class WebhookDeliveryAdmin(StaffScopedAdmin):
    list_display = [
        "event_type",
        "message_id",
        "endpoint",
        "status",
        "attempt_count",
        "last_status_code",
        "next_attempt_at",
        "created_at",
    ]
    list_filter = ["status", "event_type", "organization"]
    search_fields = ["message_id", "endpoint__url"]
    readonly_fields = [
        "organization",
        "endpoint",
        "event",
        "message_id",
        "event_type",
        "payload_pretty",
        "status",
        "attempt_count",
        "next_attempt_at",
        "leased_until",
        "last_status_code",
    ]
    fields = tuple(readonly_fields)
    inlines = [AttemptInline]
    actions = ["redeliver"]

    # a log: what was sent, shown as it was sent (redeliver from the list)
    def has_add_permission(self, request) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False

    @admin.display(description="Payload")
    def payload_pretty(self, obj):
        return format_html(
            '<pre class="pf-payload" style="white-space: pre-wrap; overflow-wrap: anywhere; max-width: 100%; margin: 0">{}</pre>',
            json.dumps(obj.payload, indent=2, ensure_ascii=False, sort_keys=False),
        )

    @admin.action(description="Redeliver the selected deliveries")
    def redeliver(self, request, queryset):
        done = skipped = 0
        for delivery in queryset.select_related("endpoint"):
            if delivery.endpoint.active:
                services.delivery_redeliver(delivery=delivery)
                done += 1
            else:
                skipped += 1
        self.message_user(request, f"{done} delivery(ies) queued again.", messages.SUCCESS)
        if skipped:
            self.message_user(
                request, f"{skipped} skipped: their webhook is disabled (enable it first).", messages.WARNING
            )


@admin.register(InboundWebhook)
class InboundWebhookAdmin(StaffScopedAdmin):
    organization_path = None  # provider webhooks (billing, identity) belong to no organization

    list_display = ["provider", "event_id", "subject", "received_at", "processed_at", "outcome"]
    list_filter = ["provider", ("processed_at", admin.EmptyFieldListFilter)]
    search_fields = ["event_id", "subject"]
    readonly_fields = ["provider", "event_id", "subject", "payload", "received_at", "processed_at", "outcome"]

"""The content lists of the staff console: filters, columns and bulk actions (approve,
reject with a reason, regenerate, approval links). Every action calls a service; a refusal is
an admin message, never a 500."""

from __future__ import annotations

from django import forms
from django.contrib import admin, messages
from django.contrib.admin import helpers
from django.db import connection
from django.db.models import Prefetch
from django.template.response import TemplateResponse
from django.utils.html import format_html

from apps.accounts.admin_scope import StaffScopedAdmin
from apps.core.errors import ApplicationError
from apps.media.models import Kind, MediaAsset
from apps.profiles.models import Platform

from .. import permissions, selectors, services, states
from ..admin_links import create_approval_link

CURRENT_KINDS = (Kind.GENERATED, Kind.UPLOAD)
#: the live counter's inputs: a caption or hashtags far past every platform's limit (Facebook's
#: 63,206 characters is the largest) are refused, not measured; names (platform, formats) are short
MEASURE_MAX_CHARS = {"caption": 100_000, "hashtags": 10_000}
MEASURE_MAX_NAME = 64
DETAIL_FIELDS = [
    "organization",
    "brand",
    "profile",
    "platforms",
    "prompt",
    "generation_mode",
    "post_type",
    "media_type",
    "dimensions",
    "status",
    "status_reason",
    "progress",
    "campaign",
    "batch",
    "approved_at",
    "approved_by",
    # an AI agent's content (issue 32): made through the MCP server, by which key and agent
    "created_via",
    "agent_name",
    "api_key",
    "proposed_for",
    "generated_at",
    # what an AI made (issue 32): changed with the content page's select (console.ai_disclosure_view)
    "ai_disclosure",
    "ai_disclosure_overridden",
    "scheduled_for",
    "published_at",
    "created_at",
    "updated_at",
]


def error_text(exc: ApplicationError) -> str:
    """A service's refusal in words: its message, the allowed actions, the per-field details."""
    parts = [exc.message]
    details = exc.details or {}
    if "allowedActions" in details:
        parts.append("Allowed now: " + (", ".join(details["allowedActions"]) or "nothing") + ".")

    def flat(value) -> str:
        if isinstance(value, dict):
            return "; ".join(f"{k}: {flat(v)}" for k, v in value.items())
        if isinstance(value, (list, tuple)):
            return "; ".join(flat(v) for v in value)
        return str(value)

    for key, value in details.items():
        if key in ("status", "action", "allowedActions", "requiresApproval", "id"):
            continue
        # a service names domain subjects ("scheduled_date"): in words for staff
        parts.append(f"{key.replace('_', ' ') if key in exc.problems else key}: {flat(value)}")
    return " ".join(parts)


# --- list filters ------------------------------------------------------------------------


class PlatformFilter(admin.SimpleListFilter):
    """Content made for a platform (`platforms` is a JSON list)."""

    title = "platform"
    parameter_name = "platform"

    def lookups(self, request, model_admin):
        return Platform.choices

    def queryset(self, request, queryset):
        value = self.value()
        if not value:
            return queryset
        if connection.features.supports_json_field_contains:
            return queryset.filter(platforms__contains=[value])
        return queryset.filter(platforms__icontains=f'"{value}"')  # SQLite: the JSON text holds "name"


class StatusFilter(admin.SimpleListFilter):
    title = "status"
    parameter_name = "status"

    def lookups(self, request, model_admin):
        return [(s, s) for s in states.STATUSES]

    def queryset(self, request, queryset):
        return queryset.filter(status=self.value()) if self.value() else queryset


# --- forms ---------------------------------------------------------------------------------


class RejectForm(forms.Form):
    reason = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 3, "cols": 60, "autofocus": True}),  # ready to type
        max_length=2000,
        help_text="Kept with the content and sent in the content.rejected event.",
    )


# --- the content admin ------------------------------------------------------------------------


def _media_html(asset: MediaAsset, css: str):
    if asset.media_type == "video":
        if asset.thumbnail:
            return format_html(
                '<img class="{}" src="{}" alt="video thumbnail" style="max-height:64px;max-width:96px">',
                css,
                asset.thumbnail.url,
            )
        return format_html('<span class="{}">video</span>', css)
    return format_html(
        '<img class="{}" src="{}" alt="" style="max-height:64px;max-width:96px">',
        css,
        (asset.thumbnail or asset.file).url,
    )


class ContentListAdmin(StaffScopedAdmin):
    """The content list (and the queue, which narrows it); the content page is
    ``console.ContentAdmin``."""

    change_form_template = "admin/content/content/change_form.html"
    list_display = [
        "thumbnail",
        "summary",
        "organization",
        "brand",
        "platform_list",
        "status",
        "progress",
        "created_at",
    ]
    list_display_links = ["thumbnail", "summary"]
    list_filter = [
        "organization",
        "brand",
        PlatformFilter,
        StatusFilter,
        ("created_at", admin.DateFieldListFilter),
    ]
    list_select_related = ["organization", "brand"]
    search_fields = ["prompt", "variants__caption"]
    date_hierarchy = "created_at"
    fields = tuple(DETAIL_FIELDS)
    readonly_fields = DETAIL_FIELDS
    actions = ["approve_selected", "reject_selected", "regenerate_selected", create_approval_link]
    list_per_page = 50

    # Content is created by generation and changed by actions, never by a raw form.
    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return super().has_delete_permission(request, obj) and (obj is None or obj.deletable)

    def has_act_permission(self, request, obj=None):
        return permissions.staff_may_act(request.user)

    def delete_model(self, request, obj):
        try:
            services.content_delete(content=obj)
        except ApplicationError as exc:
            self.message_user(request, f"{obj}: {error_text(exc)}", messages.ERROR)

    def delete_queryset(self, request, queryset):
        for content in queryset:
            try:
                services.content_delete(content=content)
            except ApplicationError as exc:
                self.message_user(request, f"{content}: {error_text(exc)}", messages.ERROR)

    def get_queryset(self, request):
        current = MediaAsset.objects.filter(kind__in=CURRENT_KINDS).order_by("position", "created_at")
        return (
            super()
            .get_queryset(request)
            .prefetch_related(Prefetch("media_assets", queryset=current, to_attr="current_media"))
        )

    def get_search_results(self, request, queryset, search_term):
        queryset, _ = super().get_search_results(request, queryset, search_term)
        return queryset.distinct() if search_term else queryset, False

    # --- list columns --------------------------------------------------------------------------
    @admin.display(description="Media")
    def thumbnail(self, obj):
        media = getattr(obj, "current_media", None)
        if media is None:
            media = list(selectors.current_media(obj))
        if not media:
            return format_html('<span class="pf-nomedia">{}</span>', "no media")
        return _media_html(media[0], "pf-thumb")

    @admin.display(description="Prompt")
    def summary(self, obj):
        return obj.prompt[:80] + ("…" if len(obj.prompt) > 80 else "")

    @admin.display(description="Platforms")
    def platform_list(self, obj):
        return ", ".join(obj.platforms or [])

    # --- bulk actions ----------------------------------------------------------------------------
    def _bulk(self, request, queryset, done: str, call) -> None:
        ok, failures = 0, []
        for content in queryset:
            try:
                call(content)
                ok += 1
            except ApplicationError as exc:
                failures.append(f"“{content.prompt[:40]}”: {error_text(exc)}")
        if ok:
            self.message_user(request, f"{ok} item(s) {done}.", messages.SUCCESS)
        for failure in failures:
            self.message_user(request, failure, messages.ERROR)

    @admin.action(description="Approve selected content", permissions=["act"])
    def approve_selected(self, request, queryset):
        self._bulk(
            request, queryset, "approved", lambda c: services.content_approve(content=c, actor=request.user)
        )

    @admin.action(description="Reject selected content (with a reason)…", permissions=["act"])
    def reject_selected(self, request, queryset):
        form = RejectForm(request.POST if "apply" in request.POST else None)
        if "apply" in request.POST and form.is_valid():
            reason = form.cleaned_data["reason"]
            self._bulk(
                request,
                queryset,
                "rejected",
                lambda c: services.content_reject(content=c, reason=reason, actor=request.user),
            )
            return None
        return TemplateResponse(
            request,
            "admin/content/content/reject_form.html",
            {
                **self.admin_site.each_context(request),
                "opts": self.opts,
                "title": "Reject content",
                "form": form,
                "queryset": queryset,
                "bulk": True,
                "action_name": "reject_selected",
                "action_checkbox_name": helpers.ACTION_CHECKBOX_NAME,
                "select_across": request.POST.get("select_across", "0"),
            },
        )

    @admin.action(description="Regenerate selected content", permissions=["act"])
    def regenerate_selected(self, request, queryset):
        self._bulk(
            request, queryset, "sent back to generation", lambda c: services.content_regenerate(content=c)
        )

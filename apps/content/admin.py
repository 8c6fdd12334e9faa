"""The staff console for content (design section 10): lists, the review queue, the content page.

Every action calls a service (apps.content.services; schedule and publish-now are added by
apps.publishing.admin, which registers this admin's subclass); a service's
refusal (InvalidTransition, ValidationFailed, PlatformFailure, ...) becomes an admin error
message, never a 500. Nothing here decides a rule.
"""

from __future__ import annotations

import copy
import re
from urllib.parse import urlencode

from django import forms
from django.contrib import admin, messages
from django.contrib.admin import helpers
from django.contrib.admin.options import IncorrectLookupParameters
from django.contrib.admin.utils import unquote
from django.core.exceptions import PermissionDenied
from django.db import connection
from django.db.models import Prefetch
from django.http import Http404, HttpResponseRedirect, QueryDict
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils.html import format_html, format_html_join

from apps.core.errors import ApplicationError
from apps.media.models import Kind, MediaAsset
from apps.profiles.models import Platform

from . import permissions, review_queue, selectors, services, states
from .admin_links import create_approval_link
from .models import Content, ReviewItem, ReviewOpen, Variant
from .previews import previews_for

CURRENT_KINDS = (Kind.GENERATED, Kind.UPLOAD)
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
        widget=forms.Textarea(attrs={"rows": 3, "cols": 60}),
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


@admin.register(Content)
class ContentAdmin(admin.ModelAdmin):
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

    # --- the content page ---------------------------------------------------------------------
    def console_routes(self) -> list:
        """(url suffix, view, name) of the content page's actions; publishing's admin adds its own."""
        return [
            ("approve", self.approve_view, "approve"),
            ("reject", self.reject_view, "reject"),
            ("regenerate", self.regenerate_view, "regenerate"),
            ("edit-image", self.edit_image_view, "edit_image"),
            ("undo-image-edit", self.undo_image_edit_view, "undo_image_edit"),
            ("edit-variant/<str:platform>", self.edit_variant_view, "edit_variant"),
        ]

    def get_urls(self):
        info = self.opts.app_label, self.opts.model_name
        view = self.admin_site.admin_view
        return [
            path("measure/", view(self.measure_view), name=f"{info[0]}_{info[1]}_measure"),
            *[
                path(f"<path:object_id>/{suffix}/", view(fn), name=f"{info[0]}_{info[1]}_{name}")
                for suffix, fn, name in self.console_routes()
            ],
            *super().get_urls(),
        ]

    def _content(self, request, object_id) -> Content:
        if not self.has_act_permission(request):
            raise PermissionDenied
        content = (
            Content.objects.select_related("organization", "brand").filter(pk=unquote(object_id)).first()
            if _is_uuid(unquote(object_id))
            else None
        )
        if content is None:
            raise Http404("No such content.")
        return content

    def _back(self, content: Content, request=None):
        query = f"?{queue_query(request)}" if request is not None and "queue" in request.GET else ""
        return HttpResponseRedirect(reverse("admin:content_content_change", args=[content.pk]) + query)

    # --- the queue: "approve and next" ------------------------------------------------------------
    def queue_position(self, request, content: Content) -> dict | None:
        """Where `content` sits in the review queue as the reviewer sees it (its filters, search
        and order, carried in `_changelist_filters`): the previous and next items' pages."""
        if "queue" not in request.GET:
            return None
        queue_admin = self.admin_site._registry.get(ReviewItem)
        if queue_admin is None:
            return None
        listing = copy.copy(request)
        listing.GET = QueryDict(request.GET.get("_changelist_filters", ""))
        try:
            changelist = queue_admin.get_changelist_instance(listing)
        except (IncorrectLookupParameters, PermissionDenied):
            return None
        ids = [str(pk) for pk in changelist.queryset.values_list("pk", flat=True)]
        query = queue_query(request)
        page = reverse("admin:content_content_change", args=["00000000-0000-0000-0000-000000000000"])

        def url(pk):
            return page.replace("00000000-0000-0000-0000-000000000000", pk) + f"?{query}" if pk else None

        here = ids.index(str(content.pk)) if str(content.pk) in ids else None
        after = (
            ids[here + 1]
            if here is not None and here + 1 < len(ids)
            else (ids[0] if here is None and ids else None)
        )
        before = ids[here - 1] if here is not None and here > 0 else None
        return {
            "position": (here + 1) if here is not None else None,
            "total": len(ids),
            "next": url(after),
            "prev": url(before),
            "list": reverse("admin:content_reviewitem_changelist")
            + (f"?{listing.GET.urlencode()}" if listing.GET else ""),
            "query": query,
        }

    def _next(self, queue: dict):
        """After an action from the queue: the next item, or the queue when it was the last."""
        return HttpResponseRedirect(queue["next"] or queue["list"])

    def _run(self, request, content: Content, call, success: str):
        try:
            result = call()
        except ApplicationError as exc:
            self.message_user(request, error_text(exc), messages.ERROR)
            return None
        self.message_user(request, success, messages.SUCCESS)
        return result if result is not None else True

    def approve_view(self, request, object_id):
        content = self._content(request, object_id)
        if request.method == "POST":
            queue = self.queue_position(request, content)
            done = self._run(
                request,
                content,
                lambda: services.content_approve(content=content, actor=request.user),
                "Approved.",
            )
            if done and queue is not None:
                return self._next(queue)
        return self._back(content, request)

    def regenerate_view(self, request, object_id):
        content = self._content(request, object_id)
        if request.method == "POST":
            self._run(
                request,
                content,
                lambda: services.content_regenerate(content=content),
                "Sent back to generation: the page follows its progress.",
            )
        return self._back(content)

    def edit_image_view(self, request, object_id):
        content = self._content(request, object_id)
        if request.method == "POST":
            prompt = request.POST.get("prompt", "")
            self._run(
                request,
                content,
                lambda: services.content_edit_image(content=content, prompt=prompt),
                f"Image edited (“{prompt.strip()}”); the previous image is kept as a backup.",
            )
        return self._back(content)

    def undo_image_edit_view(self, request, object_id):
        content = self._content(request, object_id)
        if request.method == "POST":
            self._run(
                request,
                content,
                lambda: services.content_undo_image_edit(content=content),
                "Image edit undone: the previous image is back.",
            )
        return self._back(content)

    def edit_variant_view(self, request, object_id, platform: str):
        """Save one platform's text through the content service (the API's rules: approval
        withdrawn on approved content of a brand that requires it, scheduled text refused);
        its refusal goes back to the page, inline, by its domain subjects."""
        content = self._content(request, object_id)
        if request.method != "POST":
            return self._back(content)
        fields = {
            "caption": request.POST.get("caption", "").replace("\r\n", "\n"),
            "hashtags": [h for h in request.POST.get("hashtags", "").replace(",", " ").split() if h],
            "firstComment": request.POST.get("first_comment", "").replace("\r\n", "\n"),
            "altText": request.POST.get("alt_text", "").replace("\r\n", "\n"),
            "title": request.POST.get("title", ""),
        }
        try:
            updated = services.content_update(
                content=content, variants={platform: fields}, actor=request.user
            )
        except ApplicationError as exc:
            request.session[EDIT_SESSION_KEY] = {
                "content": str(content.pk),
                "platform": platform,
                "values": request.POST.dict(),
                "errors": _edit_errors(exc, platform),
            }
            query = f"&{queue_query(request)}" if "queue" in request.GET else ""
            return HttpResponseRedirect(
                reverse("admin:content_content_change", args=[content.pk])
                + f"?edit={platform}{query}#pf-v-{platform}"
            )
        note = " The approval was withdrawn: approve it again." if updated.status != content.status else ""
        self.message_user(request, f"{platform}: saved.{note}", messages.SUCCESS)
        if request.POST.get("then") == "approve":
            return self.approve_view(request, object_id)
        return self._back(content, request)

    def measure_view(self, request):
        """The live counter's figures: the text measured by the server's own code."""
        from django.http import JsonResponse

        from apps.platforms.measure import caption_length

        if not self.has_view_permission(request):
            raise PermissionDenied
        data = request.POST if request.method == "POST" else request.GET
        length = caption_length(
            data.get("platform", ""),
            data.get("caption", "").replace("\r\n", "\n"),
            data.get("hashtags", "").replace(",", " ").split(),
            post_type=data.get("post_type", "feed"),
            media_type=data.get("media_type", "image"),
        )
        if length is None:
            return JsonResponse({"error": "Unknown platform or format."}, status=400)
        return JsonResponse(length)

    def _form_page(self, request, content, form, *, title: str, template: str, submit: str):
        return TemplateResponse(
            request,
            template,
            {
                **self.admin_site.each_context(request),
                "opts": self.opts,
                "title": title,
                "form": form,
                "original": content,
                "submit_label": submit,
                "bulk": False,
            },
        )

    def reject_view(self, request, object_id):
        content = self._content(request, object_id)
        form = RejectForm(request.POST or None)
        if request.method == "POST" and form.is_valid():
            reason = form.cleaned_data["reason"]
            queue = self.queue_position(request, content)
            done = self._run(
                request,
                content,
                lambda: services.content_reject(content=content, reason=reason, actor=request.user),
                "Rejected.",
            )
            if done and queue is not None:
                return self._next(queue)
            return self._back(content, request)
        return self._form_page(
            request,
            content,
            form,
            title="Reject content",
            submit="Reject",
            template="admin/content/content/reject_form.html",
        )

    def change_view(self, request, object_id, form_url="", extra_context=None):
        content = self.get_object(request, unquote(object_id)) if _is_uuid(unquote(object_id)) else None
        extra = dict(extra_context or {})
        if content is not None:
            services.review_opened(content=content, user=request.user)
            queue = self.queue_position(request, content)
            extra.update(queue=queue, queue_qs=queue["query"] if queue else "")
            media = list(MediaAsset.objects.filter(content=content).order_by("position", "created_at"))
            extra.update(
                console=True,
                can_act=self.has_act_permission(request),
                can_edit=self.has_act_permission(request) and content.status not in services.TEXT_LOCKED,
                allowed=set(content.allowed_actions),
                # brand-aware: review content of a brand that requires approval is approved first
                can_publish=bool(states.PUBLISHING_ACTIONS & set(content.allowed_actions)),
                live=content.status in (states.PENDING, states.GENERATING),
                current_media=[m for m in media if m.kind in CURRENT_KINDS],
                backups=[m for m in media if m.kind == Kind.BACKUP],
                has_edit=any("editedFrom" in (m.metadata or {}) for m in media if m.kind in CURRENT_KINDS),
                variants=_for_page(
                    content,
                    list(content.variants.all()),
                    _editing(request, content),
                    [m for m in media if m.kind in CURRENT_KINDS],
                ),
                publications=list(
                    content.publications.select_related("profile").order_by("scheduled_for", "created_at")
                ),
                content_id=str(content.pk),
                history=list(content.history.all()[:50]),
            )
        return super().change_view(request, object_id, form_url, extra_context=extra)


def _with_lengths(content: Content, variants: list) -> list:
    """Each variant's published text (caption and hashtags) measured in its platform's own unit
    (X weighted, Bluesky graphemes, Threads with emoji bytes) against the platform's limit."""
    from apps.platforms.measure import caption_length
    from apps.platforms.rules import get_rules

    for v in variants:
        try:
            v.display_name = get_rules(v.platform).display_name  # "TikTok", "LinkedIn", "X"
        except (KeyError, ValueError):
            v.display_name = v.platform
        v.length = caption_length(
            v.platform,
            v.caption or "",
            v.hashtags or [],
            post_type=content.post_type,
            media_type=content.media_type,
        )
    return variants


EDIT_SESSION_KEY = "pf_variant_edit"
EDIT_FIELDS = {
    "caption": "caption",
    "hashtags": "hashtags",
    "firstComment": "first_comment",
    "altText": "alt_text",
    "title": "title",
    "sounds": "sounds",
}


def _edit_errors(exc: ApplicationError, platform: str) -> dict:
    """A refusal by field of the edit form (`__all__` for the rest), in words."""
    per_platform = ((exc.problems or {}).get("variants") or {}) if exc.problems else {}
    problems = per_platform.get(platform) if isinstance(per_platform, dict) else None
    if isinstance(problems, dict) and problems:
        out = {EDIT_FIELDS.get(k, "general"): str(v) for k, v in problems.items()}
        out.setdefault("general", exc.message)
        return out
    return {"general": error_text(exc)}


def _editing(request, content: Content) -> dict:
    """The variant being edited: the platform (`?edit=`), and a refused edit's values and errors."""
    stash = request.session.pop(EDIT_SESSION_KEY, None)
    if stash and stash.get("content") == str(content.pk):
        return {"platform": stash["platform"], "values": stash["values"], "errors": stash["errors"]}
    return {"platform": request.GET.get("edit", ""), "values": {}, "errors": {}}


def _adaptation_key(text: str) -> str:
    """An adaptation without the platform it names ("title dropped: not supported on X (feed
    image)" -> "title dropped: not supported"): the same change on every variant is said once."""
    return ADAPTATION_PLATFORM.sub("", text)


ADAPTATION_PLATFORM = re.compile(r" (?:on|for) [A-Z][\w]*(?: \([^)]*\))?$")


def _for_page(content: Content, variants: list, editing: dict, media: list) -> list:
    """Variants as the page shows them: lengths, the edit form's values and errors, the
    platform preview, and the adaptations that repeat on every variant said once
    (`content.common_adaptations`)."""
    _with_lengths(content, variants)
    previews = previews_for(content, variants, media)
    keys = [{_adaptation_key(a) for a in (v.adaptations or [])} for v in variants]
    common = set.intersection(*keys) if len(variants) > 1 else set()
    content.common_adaptations = sorted(common)  # type: ignore[attr-defined]  # for the page
    for v in variants:
        v.own_adaptations = [a for a in (v.adaptations or []) if _adaptation_key(a) not in common]
        v.editing = editing["platform"] == v.platform
        stashed = editing["values"] if v.editing and editing["values"] else None
        v.form = stashed or {
            "caption": v.caption,
            "hashtags": " ".join(v.hashtags or []),
            "first_comment": v.first_comment,
            "alt_text": v.alt_text,
            "title": v.title,
        }
        v.errors = editing["errors"] if v.editing else {}
        v.preview = previews.get(v.platform)
    return variants


def queue_query(request) -> str:
    """The query that keeps a content page in its queue: `queue=1` and the queue's filters."""
    return urlencode({"queue": "1", "_changelist_filters": request.GET.get("_changelist_filters", "")})


def _is_uuid(value: str) -> bool:
    import uuid

    try:
        uuid.UUID(str(value))
    except ValueError:
        return False
    return True


@admin.register(ReviewItem)
class ReviewQueueAdmin(ContentAdmin):
    """Content in review, oldest first (a day's queue in the order it came), with its media, every
    platform's caption excerpt and flags: click one to open its content page, which keeps the
    queue's order and filters for "approve and next"."""

    list_display = ["thumbnail", "summary", "variants_column", "organization", "brand", "created_at"]
    list_filter = ["organization", "brand", PlatformFilter, ("created_at", admin.DateFieldListFilter)]
    ordering = ["created_at"]

    class Media:
        css = {"all": ("postforge/review-queue.css",)}

    def get_queryset(self, request):
        variants = Prefetch(
            "variants", queryset=Variant.objects.order_by("platform"), to_attr="queue_variants"
        )
        return super().get_queryset(request).filter(status=states.REVIEW).prefetch_related(variants)

    def get_urls(self):
        return admin.ModelAdmin.get_urls(self)

    def has_delete_permission(self, request, obj=None):
        return False

    @admin.display(description="Platforms: caption and flags")
    def variants_column(self, obj):
        has_media = bool(getattr(obj, "current_media", None))
        lines = review_queue.variant_lines(obj, getattr(obj, "queue_variants", []), has_media=has_media)
        if not lines:
            return format_html('<span class="pf-nomedia">{}</span>', "no variants")
        return format_html_join(
            "",
            '<div class="pf-q-line" data-platform="{}"><strong>{}</strong> {} {}</div>',
            (
                (
                    line.platform,
                    line.name,
                    line.excerpt,
                    format_html_join(
                        " ", '<span class="pf-flag" title="{}">⚠ {}</span>', ((f, f) for f in line.flags)
                    ),
                )
                for line in lines
            ),
        )

    @admin.action(description="Approve selected content", permissions=["act"])
    def approve_selected(self, request, queryset):
        """Asks first, naming how many of the selected items nobody in this account opened."""
        if "confirm" in request.POST:
            return super().approve_selected(request, queryset)
        items = list(queryset)
        opened = set(
            ReviewOpen.objects.filter(user=request.user, content__in=items).values_list(
                "content_id", flat=True
            )
        )
        unopened = [c for c in items if c.pk not in opened]
        return TemplateResponse(
            request,
            "admin/content/content/approve_confirm.html",
            {
                **self.admin_site.each_context(request),
                "opts": self.opts,
                "title": f"Approve {len(items)} item(s)?",
                "queryset": items,
                "unopened": unopened,
                "action_checkbox_name": helpers.ACTION_CHECKBOX_NAME,
                "select_across": request.POST.get("select_across", "0"),
            },
        )

    def change_view(self, request, object_id, form_url="", extra_context=None):
        query = urlencode({"queue": "1", "_changelist_filters": request.GET.get("_changelist_filters", "")})
        return HttpResponseRedirect(
            reverse("admin:content_content_change", args=[unquote(object_id)]) + f"?{query}"
        )

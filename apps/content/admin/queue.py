"""The review queue: content in review, oldest first, with every platform's caption excerpt
and flags; an item opens its content page, which keeps the queue's order for "approve and
next"."""

from __future__ import annotations

from urllib.parse import urlencode

from django.contrib import admin
from django.contrib.admin import helpers
from django.contrib.admin.utils import unquote
from django.db.models import Prefetch
from django.http import Http404, HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils.html import format_html, format_html_join

from apps.accounts.staff import staff_scope

from .. import review_queue, states
from ..models import Content, ReviewItem, ReviewOpen, Variant
from .console import ContentAdmin, _is_uuid
from .lists import PlatformFilter


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
        pk = unquote(object_id)
        if not (_is_uuid(pk) and staff_scope(Content.objects.filter(pk=pk), request.user).exists()):
            raise Http404("No such content.")
        query = urlencode({"queue": "1", "_changelist_filters": request.GET.get("_changelist_filters", "")})
        return HttpResponseRedirect(
            reverse("admin:content_content_change", args=[unquote(object_id)]) + f"?{query}"
        )

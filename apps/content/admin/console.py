"""The content page of the staff console: its actions (approve, reject, regenerate, edit image
and undo, edit a variant, and those other apps register: ``register_console_action``), the
live counter's measure and the review queue's "approve and next". Nothing here decides a rule:
each action calls a service."""

from __future__ import annotations

import copy
import functools
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode

from django.contrib import admin, messages
from django.contrib.admin.options import IncorrectLookupParameters
from django.contrib.admin.utils import unquote
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect, QueryDict
from django.template.response import TemplateResponse
from django.urls import path, reverse

from apps.accounts.staff import staff_scope
from apps.core.errors import ApplicationError
from apps.media.models import Kind, MediaAsset
from apps.platforms.intents import INTENTS
from apps.platforms.rules import get_rules

from .. import services, states
from ..models import AIDisclosure, Content, ReviewItem
from ..serializers import media_platforms
from ..services.intent import describe as describe_intent
from .lists import (
    CURRENT_KINDS,
    MEASURE_MAX_CHARS,
    MEASURE_MAX_NAME,
    ContentListAdmin,
    RejectForm,
    error_text,
)
from .variants import EDIT_SESSION_KEY, edit_errors, editing_state, variant_cards

# --- actions other apps add to the content page ----------------------------------------------

#: a console action's view: (the content admin, the request, the content's id) -> a response
ConsoleView = Callable[["ContentAdmin", HttpRequest, str], HttpResponse]


@dataclass(frozen=True)
class ConsoleAction:
    suffix: str  # /admin/content/content/<id>/<suffix>/
    name: str  # admin:content_content_<name>
    view: ConsoleView


#: the registry: content's admin knows nothing of publishing, which registers its own actions
CONSOLE_ACTIONS: dict[str, ConsoleAction] = {}


def register_console_action(suffix: str, *, name: str) -> Callable[[ConsoleView], ConsoleView]:
    """Add an action page to every content's page (``@register_console_action("schedule",
    name="schedule")``); the view gets the content admin, whose ``content_for`` applies the
    staff scoping rule and the act permission."""

    def add(view: ConsoleView) -> ConsoleView:
        CONSOLE_ACTIONS[name] = ConsoleAction(suffix, name, view)
        return view

    return add


#: a panel another app adds to the content page: the content -> extra template context
ConsolePanel = Callable[[Content], dict[str, Any]]

#: the content page's panels other apps register (publishing's pre-flight check)
CONSOLE_PANELS: dict[str, ConsolePanel] = {}


def register_console_panel(name: str) -> Callable[[ConsolePanel], ConsolePanel]:
    """Add context to every content's page (``@register_console_panel("preflight")``): the
    function gets the content (already scoped to the staff user) and returns template context."""

    def add(panel: ConsolePanel) -> ConsolePanel:
        CONSOLE_PANELS[name] = panel
        return panel

    return add


@admin.register(Content)
class ContentAdmin(ContentListAdmin):
    """The content list with its page: every content's media, variants and actions."""

    # --- the content page ---------------------------------------------------------------------
    def console_routes(self) -> list[tuple[str, Callable[..., HttpResponse], str]]:
        """(url suffix, view, name) of the content page's actions: its own, then those other
        apps registered (``register_console_action``: publishing's schedule and publish now)."""
        return [
            ("approve", self.approve_view, "approve"),
            ("reject", self.reject_view, "reject"),
            ("regenerate", self.regenerate_view, "regenerate"),
            ("edit-image", self.edit_image_view, "edit_image"),
            ("undo-image-edit", self.undo_image_edit_view, "undo_image_edit"),
            ("edit-variant/<str:platform>", self.edit_variant_view, "edit_variant"),
            ("ai-disclosure", self.ai_disclosure_view, "ai_disclosure"),
            *((a.suffix, functools.partial(a.view, self), a.name) for a in CONSOLE_ACTIONS.values()),
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
            staff_scope(Content.objects.select_related("organization", "brand"), request.user)
            .filter(pk=unquote(object_id))
            .first()
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
        """Generate again; with `intent` (the intent select: one of INTENTS, or empty to read
        the brief again) for what the reviewer chose, recorded in the history (issue 31)."""
        content = self._content(request, object_id)
        if request.method == "POST":
            intent = request.POST.get("intent")  # None: the plain Regenerate button
            done = (
                f" Written for {intent} now."
                if intent
                else " The brief is read again."
                if intent == ""
                else ""
            )
            self._run(
                request,
                content,
                lambda: services.content_regenerate(content=content, intent=intent, actor=request.user),
                f"Sent back to generation: the page follows its progress.{done}",
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

    def ai_disclosure_view(self, request, object_id):
        """Say what of the content an AI made (a person's override, in the content's history)."""
        content = self._content(request, object_id)
        if request.method == "POST":
            value = request.POST.get("ai_disclosure", "")
            self._run(
                request,
                content,
                lambda: services.content_set_ai_disclosure(content=content, value=value, actor=request.user),
                f"AI-generated set to “{AIDisclosure(value).label if value in AIDisclosure.values else value}”: "
                "publishing labels follow it.",
            )
        return self._back(content, request)

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
                "errors": edit_errors(exc, platform),
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
        too_long = [k for k, v in data.items() if len(v) > MEASURE_MAX_CHARS.get(k, MEASURE_MAX_NAME)]
        if too_long:  # a counter never needs more; 2.6 MB took 12.8 s of a sync worker
            return JsonResponse(
                {"error": f"{', '.join(sorted(too_long))}: too long to measure.", "fields": sorted(too_long)},
                status=400,
            )
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
            shown = [m for m in media if m.kind in CURRENT_KINDS]
            # which platforms each picture goes to (one render per platform shape, issue 30)
            where = media_platforms(content, shown)
            for m in shown:
                m.for_platforms = ", ".join(get_rules(p).display_name for p in where[m.pk])
            cards, common = variant_cards(
                content,
                list(content.variants.all()),
                editing_state(request, content),
                [m for m in media if m.kind in CURRENT_KINDS],
            )
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
                variants=cards,
                common_adaptations=common,
                publications=list(
                    content.publications.select_related("profile").order_by("scheduled_for", "created_at")
                ),
                content_id=str(content.pk),
                ai_disclosure_choices=AIDisclosure.choices,
                history=list(content.history.all()[:50]),
                # what it is written for (issue 31): shown with its confidence, changed on regenerate
                intent_label=describe_intent(
                    content.intent, content.intent_confidence, content.intent_source
                ),
                intent_choices=INTENTS,
                intent_set=content.intent if content.intent_source == "set" else "",
            )
            for panel in CONSOLE_PANELS.values():
                extra.update(panel(content))
        return super().change_view(request, object_id, form_url, extra_context=extra)


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

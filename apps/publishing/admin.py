"""The staff console for publishing: every publication with its errors and a retry action;
the posts the built-in sandbox publisher accepted. Rows change through services only."""

from __future__ import annotations

from typing import Any, cast

from django import forms
from django.conf import settings
from django.contrib import admin, messages
from django.contrib.admin.helpers import ACTION_CHECKBOX_NAME
from django.http import HttpRequest, HttpResponse
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils.html import format_html

from apps.accounts.admin_scope import StaffScopedAdmin
from apps.content.admin import ContentAdmin, error_text, register_console_action, register_console_panel
from apps.content.models import Content
from apps.core.admin_site import register_page
from apps.core.errors import ApplicationError
from apps.profiles.admin import profile_badges
from apps.profiles.models import Platform, SocialProfile

from . import oauth, permissions, post_urls, services
from .models import OAuthRedirectOrigin, Publication, SandboxPost
from .platforms.tiktok import TIKTOK_PRIVACY_LEVELS


class PublicationStatusFilter(admin.SimpleListFilter):
    title = "status"
    parameter_name = "status"

    def lookups(self, request, model_admin):
        return [(s, s) for s in Publication.STATUSES]

    def queryset(self, request, queryset):
        return queryset.filter(status=self.value()) if self.value() else queryset


class PublicationPlatformFilter(admin.SimpleListFilter):
    title = "platform"
    parameter_name = "platform"

    def lookups(self, request, model_admin):
        return Platform.choices

    def queryset(self, request, queryset):
        return queryset.filter(profile__platform=self.value()) if self.value() else queryset


def _error_text(exc: ApplicationError) -> str:
    from apps.content.admin import error_text

    return error_text(exc)


@admin.register(Publication)
class PublicationAdmin(StaffScopedAdmin):
    list_display = [
        "content_link",
        "profile",
        "platform_shown",
        "organization",
        "status",
        "attempts",
        "scheduled_for",
        "due_at",
        "published_at",
        "visibility",
        "error",
        "post_link",
    ]
    list_filter = [
        PublicationStatusFilter,
        PublicationPlatformFilter,
        "organization",
        ("scheduled_for", admin.DateFieldListFilter),
    ]
    list_select_related = ["organization", "profile", "content"]
    search_fields = ["external_id", "last_error", "profile__username", "content__prompt"]
    actions = ["retry_failed", "confirm_posted", "confirm_not_posted"]
    readonly_fields = fields = [  # type: ignore[assignment]  # (one list for both)
        "organization",
        "content",
        "profile",
        "status",
        "scheduled_for",
        "due_at",
        "attempts",
        "queued_at",
        "lease_until",
        "outcome_unknown",
        "external_id",
        "url",
        "published_at",
        "visibility",
        "last_error",
        "error_code",
        "options",
        "platform_state",
        "created_at",
        "updated_at",
    ]

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False

    def has_act_permission(self, request, obj=None):
        return permissions.staff_may_act(request.user)

    @admin.display(description="Content")
    def content_link(self, obj):
        url = reverse("admin:content_content_change", args=[obj.content_id])
        return format_html('<a href="{}">{}</a>', url, obj.content.prompt[:50])

    @admin.display(description="Platform", ordering="platform")
    def platform_shown(self, obj):
        """The platform with the profile's badges (SANDBOX: the post went nowhere; TOKEN ...)."""
        return format_html("{}{}", obj.platform or obj.profile.platform, profile_badges(obj.profile))

    @admin.display(description="Last error")
    def error(self, obj):
        text = obj.last_error or ""
        return text[:160] + ("…" if len(text) > 160 else "")

    @admin.display(description="Post")
    def post_link(self, obj):
        return (
            format_html('<a href="{}" rel="noreferrer" target="_blank">open</a>', obj.url) if obj.url else ""
        )

    @admin.action(description="Retry selected failed publications (due now)", permissions=["act"])
    def retry_failed(self, request, queryset):
        ok = 0
        for pub in queryset.select_related("profile"):
            try:
                services.publication_retry(publication=pub)
                ok += 1
            except ApplicationError as exc:
                self.message_user(
                    request,
                    f"{pub.profile.platform}: {pub.profile.username}: {_error_text(exc)}",
                    messages.ERROR,
                )
        if ok:
            self.message_user(
                request,
                f"{ok} publication(s) back on schedule, due now: the dispatcher publishes them next.",
                messages.SUCCESS,
            )

    @admin.action(
        description="Outcome unknown: I found the post on the platform (give its link, mark published)",
        permissions=["act"],
    )
    def confirm_posted(self, request, queryset):
        """An intermediate page asks for each post's link (the service checks it is the
        platform's and reads the post id from it); the action runs again when it is sent."""
        pubs = list(queryset.select_related("profile", "content").order_by("scheduled_for", "created_at"))
        for pub in pubs:
            if pub.status != Publication.UNKNOWN:
                self.message_user(
                    request,
                    f"{pub.profile.platform}: {pub.profile.username}: only a publication whose "
                    f"outcome is unknown can be confirmed; this one is {pub.status}.",
                    messages.ERROR,
                )
        rows = [
            (
                pub,
                PostLinkForm(
                    request.POST if "pf_confirm" in request.POST else None,
                    prefix=f"pub-{pub.pk}",
                    publication=pub,
                ),
            )
            for pub in pubs
            if pub.status == Publication.UNKNOWN
        ]
        if not rows:
            return None
        if "pf_confirm" in request.POST:
            ok, pending = 0, []
            for pub, form in rows:
                if form.is_valid():
                    try:
                        services.publication_resolve(
                            publication=pub, posted=True, url=form.cleaned_data["url"]
                        )
                        ok += 1
                        continue
                    except ApplicationError as exc:
                        form.add_error("url", "; ".join((exc.details or {}).get("url") or [_error_text(exc)]))
                pending.append((pub, form))
            if ok:
                self.message_user(request, f"{ok} publication(s) marked published.", messages.SUCCESS)
            if not pending:
                return None
            rows = pending
        context = {
            **self.admin_site.each_context(request),
            "opts": self.model._meta,
            "title": "I found the post",
            "rows": rows,
            "action": "confirm_posted",
            "action_checkbox_name": ACTION_CHECKBOX_NAME,
        }
        return TemplateResponse(request, "admin/publishing/publication/confirm_posted.html", context)

    @admin.action(
        description="Outcome unknown: the post is not on the platform (publish it again, due now)",
        permissions=["act"],
    )
    def confirm_not_posted(self, request, queryset):
        ok = 0
        for pub in queryset.select_related("profile"):
            try:
                services.publication_resolve(publication=pub, posted=False)
                ok += 1
            except ApplicationError as exc:
                self.message_user(
                    request,
                    f"{pub.profile.platform}: {pub.profile.username}: {_error_text(exc)}",
                    messages.ERROR,
                )
        if ok:
            self.message_user(request, f"{ok} publication(s) back on schedule, due now.", messages.SUCCESS)


class PostLinkForm(forms.Form):
    """The link of a post a person found on the platform (checked by the service)."""

    url = forms.CharField(
        label="Link of the post",
        max_length=post_urls.MAX_URL,
        widget=forms.URLInput(attrs={"size": 90, "placeholder": "https://"}),
    )

    def __init__(self, *args, publication: Publication, **kwargs):
        super().__init__(*args, **kwargs)
        profile = publication.profile
        if profile.sandbox:
            help_text = (
                f"This sandbox profile's posts: {settings.PUBLIC_BASE_URL}/sandbox/{profile.platform}/…"
            )
        else:
            help_text = f"https on {' or '.join(post_urls.hosts_for(profile.platform))}"
        self.fields["url"].help_text = help_text


@admin.register(SandboxPost)
class SandboxPostAdmin(StaffScopedAdmin):
    """What the sandbox publisher accepted, as a platform would show it (read only)."""

    list_display = [
        "created_at",
        "platform",
        "profile",
        "organization",
        "post_type",
        "short_caption",
        "external_id",
        "reference",
    ]
    list_filter = ["platform", "organization", "post_type"]
    list_select_related = ["organization", "profile"]
    search_fields = ["caption", "external_id", "reference"]
    date_hierarchy = "created_at"

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False

    @admin.display(description="Caption")
    def short_caption(self, obj):
        return obj.caption[:100] + ("…" if len(obj.caption) > 100 else "")


# --- schedule and publish-now on the content page (registered console actions) ---


class ProfilesForm(forms.Form):
    profiles = forms.ModelMultipleChoiceField(
        queryset=SocialProfile.objects.none(), widget=forms.CheckboxSelectMultiple
    )
    # TikTok's content sharing guidelines: no preselected privacy, the creator's consent each post
    tiktok_privacy_level = forms.ChoiceField(
        label="TikTok privacy",
        required=False,
        choices=[("", "(choose)"), *((level, level) for level in TIKTOK_PRIVACY_LEVELS)],
        help_text="TikTok profiles only: who can see the post, one of the creator's current options "
        "(TikTok has no default; an app TikTok has not audited posts SELF_ONLY only).",
    )
    tiktok_consent = forms.BooleanField(label="The creator agrees to post this to TikTok", required=False)

    def options(self) -> dict:
        """The TikTok choices, when given, as a schedule or publish carries them."""
        data = self.cleaned_data
        if not data.get("tiktok_privacy_level") and not data.get("tiktok_consent"):
            return {}
        return {
            "tiktok": {
                "privacyLevel": data.get("tiktok_privacy_level") or None,
                "consent": bool(data.get("tiktok_consent")),
            }
        }

    def __init__(self, *args, content: Content, **kwargs):
        super().__init__(*args, **kwargs)
        # the choice list only; whether a profile may publish this content is the service's call
        profiles = cast(forms.ModelMultipleChoiceField, self.fields["profiles"])
        profiles.queryset = (
            SocialProfile.objects.filter(organization_id=content.organization_id)
            .select_related("brand")
            .order_by("platform", "username")
        )

        def label(p: SocialProfile) -> str:
            return (
                f"{p.platform}: {p.username} ({p.brand.name}{', sandbox' if p.sandbox else ''}"
                f"{'' if p.connected and p.token_status == 'valid' else ', ' + p.token_status})"
            )

        profiles.label_from_instance = label  # type: ignore[method-assign,assignment]


class ScheduleForm(ProfilesForm):
    scheduled_for = forms.CharField(
        label="Publish at",
        widget=forms.DateTimeInput(attrs={"type": "datetime-local"}),
        help_text="Local time in the time zone below.",
    )
    timezone = forms.CharField(
        initial="UTC", max_length=64, help_text="An IANA time zone, e.g. Europe/Paris."
    )

    force = forms.BooleanField(
        required=False,
        label="Schedule despite the pre-flight check",
        help_text="The check names what a platform would refuse; forcing schedules it anyway.",
    )

    field_order = ["scheduled_for", "timezone", "profiles", "tiktok_privacy_level", "tiktok_consent", "force"]


class ImportForm(forms.Form):
    organization: forms.ModelChoiceField[Any] = forms.ModelChoiceField(queryset=None)
    file = forms.FileField(help_text="CSV (UTF-8) or XLSX, with a header row; see the template.")

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        from apps.accounts.models import Organization

        super().__init__(*args, **kwargs)
        field = cast(forms.ModelChoiceField, self.fields["organization"])
        field.queryset = Organization.objects.order_by("name")


@register_console_action("schedule", name="schedule")
def schedule_view(console: ContentAdmin, request: HttpRequest, object_id: str) -> HttpResponse:
    """Schedule on the content page (content's admin knows nothing of publishing)."""
    content = console._content(request, object_id)
    form = ScheduleForm(request.POST or None, content=content)
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        done = console._run(
            request,
            content,
            lambda: services.publications_schedule(
                content=content,
                profiles=list(data["profiles"]),
                scheduled_for=data["scheduled_for"],
                options={"timezone": data["timezone"].strip(), **form.options()},
                actor=request.user,
                force=bool(data.get("force")),
            ),
            "Scheduled.",
        )
        if done:
            return console._back(content)
    return console._form_page(
        request,
        content,
        form,
        title="Schedule content",
        submit="Schedule",
        template="admin/content/content/publish_form.html",
    )


@register_console_action("publish", name="publish")
def publish_view(console: ContentAdmin, request: HttpRequest, object_id: str) -> HttpResponse:
    """Publish now on the content page."""
    content = console._content(request, object_id)
    form = ProfilesForm(request.POST or None, content=content)
    if request.method == "POST" and form.is_valid():
        try:
            _, pubs = services.publications_publish_now(
                content=content,
                profiles=list(form.cleaned_data["profiles"]),
                options=form.options(),
                actor=request.user,
            )
        except ApplicationError as exc:
            console.message_user(request, error_text(exc), messages.ERROR)
        else:
            for pub in pubs:
                level = messages.ERROR if pub.status == Publication.FAILED else messages.SUCCESS
                detail = pub.url if pub.status == Publication.PUBLISHED else (pub.last_error or pub.status)
                console.message_user(
                    request,
                    f"{pub.profile.platform}: {pub.profile.username}: {pub.status} {detail}",
                    level,
                )
            return console._back(content)
    return console._form_page(
        request,
        content,
        form,
        title="Publish now",
        submit="Publish now",
        template="admin/content/content/publish_form.html",
    )


class RedirectOriginForm(forms.ModelForm):
    class Meta:
        model = OAuthRedirectOrigin
        fields = ["organization", "origin"]
        help_texts = {
            "origin": "scheme://host[:port], e.g. https://app.example.com (http only for localhost)."
        }

    def clean_origin(self):
        try:
            return oauth.normalize_redirect_origin(self.cleaned_data.get("origin", ""))
        except ApplicationError as exc:
            raise forms.ValidationError(exc.message) from None


@admin.register(OAuthRedirectOrigin)
class OAuthRedirectOriginAdmin(StaffScopedAdmin):
    """Where an organization's OAuth connect flows may send the browser back (besides the
    deployment's OAUTH_ALLOWED_REDIRECT_ORIGINS)."""

    form = RedirectOriginForm
    list_display = ["origin", "organization", "created_at"]
    list_filter = ["organization"]
    list_select_related = ["organization"]
    search_fields = ["origin", "organization__name"]

    def has_change_permission(self, request, obj=None):
        # an origin is added or removed, never edited; the list needs the change permission
        return obj is None and super().has_change_permission(request)

    def save_model(self, request, obj, form, change):
        saved = oauth.redirect_origin_add(organization=obj.organization, origin=obj.origin)
        obj.pk, obj.created_at = saved.pk, saved.created_at

    def delete_model(self, request, obj):
        oauth.redirect_origin_remove(row=obj)

    def delete_queryset(self, request, queryset):
        for row in queryset:
            oauth.redirect_origin_remove(row=row)


from . import admin_calendar  # noqa: E402, F401  (the calendar's routes on the admin site)


@register_console_panel("preflight")
def preflight_panel(content: Content) -> dict[str, Any]:
    """The content page's pre-flight panel (issue 32)."""
    return {"preflight": _preflight_for_page(content)}


def import_page(request: HttpRequest) -> HttpResponse:
    """A CSV/XLSX import for an organization the staff user may see (issue 32): the same service
    as the API's, its report shown row by row."""
    from django.core.exceptions import PermissionDenied as DjangoPermissionDenied

    from apps.accounts.staff import staff_organizations
    from apps.content import permissions as content_permissions

    from .services.importing import content_import

    if not content_permissions.staff_may_act(request.user):
        raise DjangoPermissionDenied
    form = ImportForm(request.POST or None, request.FILES or None)
    organizations = cast(forms.ModelChoiceField, form.fields["organization"])
    organizations.queryset = staff_organizations(request.user)
    report: list[Any] = []
    if request.method == "POST" and form.is_valid():
        uploaded = form.cleaned_data["file"]
        try:
            result = content_import(
                organization=form.cleaned_data["organization"],
                filename=uploaded.name or "",
                data=uploaded.read(),
                actor=request.user,
            )
        except ApplicationError as exc:
            rows = (exc.problems or {}).get("rows")
            report = rows if isinstance(rows, list) else []
            messages.error(request, error_text(exc) if not report else exc.message)
        else:
            verb = "was imported before: nothing new was created" if result.replayed else "is imported"
            messages.success(
                request,
                f"The file {verb}: {result.contents} items ({result.scheduled} scheduled, "
                f"{result.generating} generating), batch {result.batch.pk}.",
            )
    return TemplateResponse(
        request,
        "admin/content/content/import_form.html",
        {
            **admin.site.each_context(request),
            "opts": Content._meta,
            "form": form,
            "report": report,
            "title": "Import posts from a CSV or XLSX file",
        },
    )


register_page("content/content/import/", import_page, name="content_content_import")


def _preflight_for_page(content) -> dict:
    """The pre-flight check of a content for its admin page: its scheduled profiles, else its
    brand's connected profiles on its platforms (none: said so)."""
    from .services.preflight import content_preflight_run

    try:
        reports, when = content_preflight_run(organization=content.organization_id, content=content)
    except ApplicationError as exc:
        return {"error": error_text(exc)}
    names = {str(p.pk): p for p in SocialProfile.objects.filter(pk__in=[r["profileId"] for r in reports])}
    return {
        "when": when,
        "ok": all(r["ok"] for r in reports),
        "profiles": [{**r, "username": getattr(names.get(r["profileId"]), "username", "")} for r in reports],
    }

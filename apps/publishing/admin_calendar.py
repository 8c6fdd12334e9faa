"""The admin calendar (/admin/calendar/): an organization's month or week of posts, its free
posting slots, and drag-to-reschedule through ``publications_schedule``.

Three routes on the default admin site: the page (filters and an empty grid the static script
fills), its data (``calendar.calendar_data`` as JSON) and the reschedule (a POST the script
sends when a scheduled post is dropped on another time; the service's refusal comes back as
JSON and is shown on the page). Staff with ``publishing.view_publication`` see it; moving a
post needs ``publishing.change_publication`` (``permissions.staff_may_act``).
"""

from __future__ import annotations

import json
import uuid

from django.contrib import admin
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, JsonResponse
from django.template.response import TemplateResponse
from django.views.decorators.http import require_GET, require_POST

from apps.accounts.models import Organization
from apps.accounts.staff import staff_organizations
from apps.brands.models import Brand
from apps.core import ids
from apps.core.admin_site import register_page
from apps.core.errors import ApplicationError, Conflict, InvalidSubject
from apps.core.timezones import is_timezone
from apps.profiles.models import SocialProfile

from . import calendar, permissions, services
from .models import Publication

VIEW_PERMISSION = "publishing.view_publication"
ORG_CHOICES = 200


def _check(request: HttpRequest) -> None:
    if not request.user.has_perm(VIEW_PERMISSION):
        raise PermissionDenied


def _uuid(raw: str | None) -> uuid.UUID | None:
    return ids.parse(raw) if raw else None


def _organization(request: HttpRequest) -> Organization | None:
    """``?org=``: one of the user's organizations (another is a 404); default the first."""
    allowed = staff_organizations(request.user)
    raw = request.GET.get("org")
    if raw:
        pk = _uuid(raw)
        org = allowed.filter(pk=pk).first() if pk else None
        if org is None:
            raise Http404("No such organization.")
        return org
    return allowed.first()


def _filters(request: HttpRequest, org: Organization) -> tuple[uuid.UUID | None, uuid.UUID | None]:
    """``brand`` and ``profile`` of this organization (another's, or no id, is a 404, as its org)."""
    chosen: list[uuid.UUID | None] = []
    for name, model in (("brand", Brand), ("profile", SocialProfile)):
        raw = request.GET.get(name)
        pk = _uuid(raw)
        if raw and (pk is None or not model.objects.filter(pk=pk, organization=org).exists()):
            raise Http404(f"No such {name}.")
        chosen.append(pk)
    return chosen[0], chosen[1]


def _invalid(exc: ApplicationError, status: int = 400) -> JsonResponse:
    # the message says it all (error_text would repeat the problems after it)
    return JsonResponse({"error": exc.message, "problems": exc.problems}, status=status)


def calendar_view(request: HttpRequest) -> TemplateResponse:
    _check(request)
    org = _organization(request)
    orgs = list(staff_organizations(request.user).values("pk", "name")[: ORG_CHOICES + 1])
    brands = list(Brand.objects.filter(organization=org).order_by("name").values("pk", "name")) if org else []
    profiles = (
        list(
            SocialProfile.objects.filter(organization=org)
            .order_by("platform", "username")
            .values("pk", "platform", "username", "brand_id")
        )
        if org
        else []
    )
    context = {
        **admin.site.each_context(request),
        "title": "Calendar",
        "org": org,
        "organizations": orgs[:ORG_CHOICES],
        "brands": brands,
        "profiles": profiles,
        "may_move": permissions.staff_may_act(request.user),
        "params": {k: request.GET.get(k, "") for k in ("view", "date", "tz", "brand", "profile")},
    }
    return TemplateResponse(request, "admin/publishing/calendar.html", context)


@require_GET
def calendar_data_view(request: HttpRequest) -> JsonResponse:
    _check(request)
    org = _organization(request)
    if org is None:
        raise Http404("No organization.")
    try:
        brand_id, profile_id = _filters(request, org)
        window = calendar.calendar_window(
            view=request.GET.get("view") or "month",
            day=request.GET.get("date"),
            tz_name=request.GET.get("tz"),
        )
    except InvalidSubject as exc:
        return _invalid(exc)
    data = calendar.calendar_data(
        organization_id=org.pk, window=window, brand_id=brand_id, profile_id=profile_id
    )
    return JsonResponse({"organization": str(org.pk), **data})


@require_POST
def calendar_reschedule_view(request: HttpRequest) -> JsonResponse:
    """``{"publication": <uuid>, "when": "YYYY-MM-DDTHH:MM", "tz": <IANA>}``: the publication
    moved to that local time, through ``publications_schedule`` (its rules apply)."""
    _check(request)
    if not permissions.staff_may_act(request.user):
        raise PermissionDenied
    try:
        body = json.loads(request.body or b"{}")
    except (ValueError, RecursionError):  # RecursionError: a body nested 100,000 deep
        body = None
    if not isinstance(body, dict):
        return _invalid(InvalidSubject("Send a JSON object.", "body", "Not a JSON object."))
    pk = _uuid(str(body.get("publication") or ""))
    allowed = staff_organizations(request.user).values("pk")
    pub = (
        Publication.objects.select_related("profile", "content")
        .filter(pk=pk, organization_id__in=allowed)
        .first()
        if pk
        else None
    )
    if pub is None:
        raise Http404("No such publication.")
    tz_name = body.get("tz")
    if tz_name is not None and not isinstance(tz_name, str):
        return _invalid(InvalidSubject("tz must be an IANA time zone.", "tz", "Unknown time zone."))
    if tz_name and not is_timezone(tz_name):  # the calendar's own parameter, named as it sent it
        return _invalid(InvalidSubject("tz must be an IANA time zone.", "tz", "Unknown time zone."))
    try:
        services.publication_reschedule(
            publication=pub, when=body.get("when"), tz_name=tz_name or None, actor=request.user
        )
    except Conflict as exc:
        return _invalid(exc, 409)
    except ApplicationError as exc:
        return _invalid(exc)
    return JsonResponse(
        {"publication": str(pub.pk), "status": pub.status, "scheduledFor": pub.scheduled_for.isoformat()}
    )


# the calendar's pages on the one admin site (apps.core.admin_site)
register_page("calendar/", calendar_view, name="calendar")
register_page("calendar/data/", calendar_data_view, name="calendar_data")
register_page("calendar/reschedule/", calendar_reschedule_view, name="calendar_reschedule")

"""The staff scoping rule (apps.accounts.staff) applied to admin pages: every ModelAdmin of the
site is a ``StaffScopedAdmin`` (tests/admin/test_staff_scoping.py checks the registry).

- its changelist, change, delete and history pages read ``get_queryset``, narrowed to the
  organizations the user may see; another organization's object is a 404 (not Django's
  "doesn't exist" redirect, which would tell an id exists);
- foreign-key and many-to-many choices on its forms offer only those organizations' rows;
- its list filters on organizations (and on rows that belong to one, e.g. brands) list only
  the related rows the user can see, so no other organization's name is shown;
- a model that belongs to no organization (``organization_path = None``: inbound provider
  webhooks, groups, social-auth rows) is for superusers only.
"""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.contrib.auth.models import Group
from django.core.exceptions import FieldDoesNotExist
from django.db.models import ForeignKey, ManyToManyField, Model, QuerySet
from django.forms import ModelChoiceField
from django.http import Http404, HttpRequest

from .models import Organization
from .staff import sees_every_organization, staff_scope


def _scoped_choices(queryset: QuerySet[Any], request: HttpRequest) -> QuerySet[Any]:
    model = queryset.model
    if model is Organization:
        return staff_scope(queryset, request.user, field="pk")
    if _has_field(model, "organization"):
        return staff_scope(queryset, request.user)
    if model is Group:
        return queryset if sees_every_organization(request.user) else queryset.none()
    return queryset


def _has_field(model: type[Model], name: str) -> bool:
    try:
        model._meta.get_field(name)
    except FieldDoesNotExist:
        return False
    return True


def _points_at_organization_rows(model: type[Model], name: str) -> bool:
    """Is list filter ``name`` a relation to organizations, or to rows that belong to one?"""
    if "__" in name:
        return False
    try:
        field = model._meta.get_field(name)
    except FieldDoesNotExist:
        return False
    related = getattr(field, "related_model", None)
    return related is Organization or (related is not None and _has_field(related, "organization"))


class StaffScopedAdmin(admin.ModelAdmin):
    #: the path from a row to its organization (``"pk"``: the organization itself); ``None``
    #: for rows of no organization, shown to superusers only
    organization_path: str | None = "organization"

    def _everything(self, request: HttpRequest) -> bool:
        return sees_every_organization(request.user)

    def get_queryset(self, request: HttpRequest) -> QuerySet[Any]:
        queryset = super().get_queryset(request)
        if self.organization_path is None:
            return queryset if self._everything(request) else queryset.none()
        scoped = staff_scope(queryset, request.user, field=self.organization_path)
        if "__" in self.organization_path and not self._everything(request):
            return scoped.distinct()  # a user in two of the staff user's organizations, once
        return scoped

    def get_object(self, request: HttpRequest, object_id: str, from_field: str | None = None) -> Any:
        obj = super().get_object(request, object_id, from_field)
        if obj is None:
            raise Http404("No such object.")
        return obj

    def has_module_permission(self, request: HttpRequest) -> bool:
        if self.organization_path is None and not self._everything(request):
            return False
        return super().has_module_permission(request)

    def has_view_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        if self.organization_path is None and not self._everything(request):
            return False
        return super().has_view_permission(request, obj)

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        if self.organization_path is None and not self._everything(request):
            return False
        return super().has_change_permission(request, obj)

    def has_add_permission(self, request: HttpRequest) -> bool:
        if self.organization_path in (None, "pk") and not self._everything(request):
            return False  # a new organization (or an organization-less row) is a superuser's call
        return super().has_add_permission(request)

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        if self.organization_path in (None, "pk") and not self._everything(request):
            return False
        return super().has_delete_permission(request, obj)

    def formfield_for_foreignkey(
        self, db_field: ForeignKey[Any, Any], request: HttpRequest, **kwargs: Any
    ) -> ModelChoiceField[Any] | None:
        field = super().formfield_for_foreignkey(db_field, request, **kwargs)
        choices = getattr(field, "queryset", None)
        if field is not None and choices is not None:
            field.queryset = _scoped_choices(choices, request)
        return field

    def formfield_for_manytomany(
        self, db_field: ManyToManyField[Any, Any], request: HttpRequest, **kwargs: Any
    ) -> Any:
        field = super().formfield_for_manytomany(db_field, request, **kwargs)
        choices = getattr(field, "queryset", None)
        if field is not None and choices is not None:
            field.queryset = _scoped_choices(choices, request)
        return field

    def get_list_filter(self, request: HttpRequest) -> Any:
        filters = super().get_list_filter(request)
        if self._everything(request):
            return filters
        return [
            (item, admin.RelatedOnlyFieldListFilter)
            if isinstance(item, str) and _points_at_organization_rows(self.model, item)
            else item
            for item in filters
        ]


class SuperuserOnlyAdmin(StaffScopedAdmin):
    """Rows of no organization: superusers only."""

    organization_path = None


def rescope(model: type[Model], *, organization_path: str | None, site: admin.AdminSite = admin.site) -> None:
    """Register ``model`` again with its current admin class made staff-scoped (for the admins
    Django and social-auth register, which know nothing of organizations)."""
    current = site._registry.get(model)
    if current is None or isinstance(current, StaffScopedAdmin):
        return
    base = type(current)
    scoped = type(
        f"Scoped{base.__name__}", (StaffScopedAdmin, base), {"organization_path": organization_path}
    )
    site.unregister(model)
    site.register(model, scoped)

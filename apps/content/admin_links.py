"""Outside-approver links in the staff console (issue 21): made from the content list's
action, listed with their address, revoked from the list. Every write is a content service."""

from __future__ import annotations

from django import forms
from django.conf import settings
from django.contrib import admin, messages
from django.contrib.admin import helpers
from django.template.response import TemplateResponse
from django.utils.html import format_html

from apps.accounts.admin_scope import StaffScopedAdmin
from apps.core.errors import ApplicationError

from . import services
from .models import ApprovalLink


def link_url(link: ApprovalLink) -> str:
    return f"{settings.PUBLIC_BASE_URL}/approve/{services.token_for(link)}/"


class ApprovalLinkForm(forms.Form):
    days = forms.IntegerField(
        min_value=1, max_value=30, initial=7, help_text="The link works for this many days."
    )
    label = forms.CharField(required=False, max_length=200, help_text="Who it is for (shown on the page).")


@admin.action(description="Create an approval link for the selected content…", permissions=["act"])
def create_approval_link(modeladmin, request, queryset):
    form = ApprovalLinkForm(request.POST if "apply" in request.POST else None)
    contents = list(queryset.select_related("organization"))
    if "apply" in request.POST and form.is_valid():
        organizations = {c.organization_id for c in contents}
        if len(organizations) != 1:
            modeladmin.message_user(
                request, "An approval link covers one organization's content.", messages.ERROR
            )
            return None
        try:
            link = services.approval_link_create(
                organization=contents[0].organization,
                contents=contents,
                actor=request.user,
                days=form.cleaned_data["days"],
                label=form.cleaned_data["label"],
            )
        except ApplicationError as exc:
            modeladmin.message_user(request, exc.message, messages.ERROR)
            return None
        modeladmin.message_user(
            request,
            format_html(
                'Approval link for {} item(s): <a id="pf-approval-link" href="{}">{}</a>',
                len(contents),
                link_url(link),
                link_url(link),
            ),
            messages.SUCCESS,
        )
        return None
    return TemplateResponse(
        request,
        "admin/content/content/approval_link_form.html",
        {
            **modeladmin.admin_site.each_context(request),
            "opts": modeladmin.opts,
            "title": "Create an approval link",
            "form": form,
            "queryset": contents,
            "action_checkbox_name": helpers.ACTION_CHECKBOX_NAME,
            "select_across": request.POST.get("select_across", "0"),
        },
    )


@admin.register(ApprovalLink)
class ApprovalLinkAdmin(StaffScopedAdmin):
    list_display = [
        "__str__",
        "label",
        "organization",
        "items",
        "expires_at",
        "revoked_at",
        "created_by",
        "address",
    ]
    list_filter = ["organization", ("revoked_at", admin.EmptyFieldListFilter)]
    readonly_fields = [
        "organization",
        "label",
        "created_by",
        "expires_at",
        "revoked_at",
        "contents",
        "address",
    ]
    fields = tuple(readonly_fields)
    actions = ["revoke"]

    def has_add_permission(self, request):
        return False  # made from the content list's action

    def has_change_permission(self, request, obj=None):
        return False

    @admin.display(description="Items")
    def items(self, obj):
        return obj.contents.count()

    @admin.display(description="Address")
    def address(self, obj):
        url = link_url(obj)
        return format_html('<a href="{}" class="pf-link-url">{}</a>', url, url)

    @admin.action(description="Revoke the selected links")
    def revoke(self, request, queryset):
        for link in queryset:
            services.approval_link_revoke(link=link)
        self.message_user(request, f"{queryset.count()} link(s) revoked.", messages.SUCCESS)

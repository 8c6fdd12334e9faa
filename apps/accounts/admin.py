from django.contrib import admin, messages
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group

from .admin_scope import StaffScopedAdmin, rescope
from .models import ApiKey, Membership, Organization
from .services import api_key_create, api_key_revoke


class MembershipInline(admin.TabularInline):
    model = Membership
    extra = 0
    autocomplete_fields = ["user"]


@admin.register(Organization)
class OrganizationAdmin(StaffScopedAdmin):
    organization_path = "pk"
    list_display = ["name", "slug", "external_id", "plan", "billing_status", "created_at"]
    list_filter = ["plan"]
    search_fields = ["name", "slug", "external_id", "billing_customer_id"]
    # set by the billing webhook (customer.subscription.*); editing the plan here is an override
    readonly_fields = ["billing_customer_id", "billing_subscription_id", "billing_status", "plan_changed_at"]
    inlines = [MembershipInline]
    actions = ["issue_admin_key"]

    @admin.action(description="Issue an admin API key (shown once)")
    def issue_admin_key(self, request, queryset):
        for org in queryset:
            issued = api_key_create(organization=org, name="admin console", created_by=request.user)
            self.message_user(
                request,
                f"{org.name}: {issued.secret}  (copy it now; it is not shown again)",
                messages.WARNING,
            )


@admin.register(ApiKey)
class ApiKeyAdmin(StaffScopedAdmin):
    list_display = ["name", "organization", "role", "lookup", "created_at", "last_used_at", "revoked_at"]
    list_filter = ["role", "organization"]
    search_fields = ["name", "lookup", "organization__name"]
    readonly_fields = ["lookup", "hashed", "created_at", "last_used_at", "revoked_at"]
    actions = ["revoke"]

    def has_add_permission(self, request):
        return False  # keys are issued from the organization page, so the secret can be shown once

    @admin.action(description="Revoke selected keys")
    def revoke(self, request, queryset):
        for key in queryset:
            api_key_revoke(api_key=key)
        self.message_user(request, f"Revoked {queryset.count()} key(s).")


# Django's and social-auth's admins, under the same rule: a staff user sees the users of their
# own organizations; groups (no organization) are for superusers. (Social-auth's tables are
# taken off the site in config/urls.py.)
rescope(get_user_model(), organization_path="memberships__organization")
rescope(Group, organization_path=None)

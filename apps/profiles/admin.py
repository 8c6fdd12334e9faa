from django.contrib import admin
from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString, mark_safe

from apps.accounts.admin_scope import StaffScopedAdmin

from .models import SocialProfile
from .services import token_expiring_soon

BADGE = '<span class="pf-badge pf-badge-{}" style="margin-left:.4em;padding:0 .4em;border-radius:3px;{}">{}</span>'
BADGE_STYLES = {
    "sandbox": "background:#fde68a;color:#78350f",
    "expired": "background:#fecaca;color:#7f1d1d",
    "expiring": "background:#fed7aa;color:#7c2d12",
    "organization": "background:#dbeafe;color:#1e3a8a",
}


def profile_badges(profile: SocialProfile) -> SafeString:
    """The admin's badges for a profile: ORGANIZATION PAGE (a LinkedIn company page, posting as
    the organization), SANDBOX (its posts go nowhere), TOKEN EXPIRED/REVOKED
    (it cannot publish until reconnected, with the reason in its events), TOKEN EXPIRES <date>
    (within 7 days and nothing can refresh it)."""
    parts = []
    if profile.platform == "linkedin" and profile.external_id.startswith("urn:li:organization:"):
        parts.append(format_html(BADGE, "organization", BADGE_STYLES["organization"], "ORGANIZATION PAGE"))
    if profile.sandbox:
        parts.append(format_html(BADGE, "sandbox", BADGE_STYLES["sandbox"], "SANDBOX"))
    if profile.token_status in ("expired", "revoked"):
        label = f"TOKEN {profile.token_status.upper()}"
        parts.append(format_html(BADGE, "expired", BADGE_STYLES["expired"], label))
    elif token_expiring_soon(profile) and profile.token_expires_at is not None:
        label = f"TOKEN EXPIRES {profile.token_expires_at.date().isoformat()}"
        parts.append(format_html(BADGE, "expiring", BADGE_STYLES["expiring"], label))
    return mark_safe("".join(parts))  # noqa: S308 - every part is built by format_html


@admin.register(SocialProfile)
class SocialProfileAdmin(StaffScopedAdmin):
    list_display = [
        "username",
        "platform",
        "organization",
        "brand",
        "connected",
        "token_status",
        "badges",
        "follower_count",
    ]
    list_filter = ["platform", "connected", "token_status", "sandbox", "organization"]
    search_fields = ["username", "display_name", "external_id"]
    list_select_related = ["organization", "brand"]
    exclude = ["access_token_enc", "refresh_token_enc", "secret_enc"]
    readonly_fields = ["features_allowed"]

    @admin.display(description="")
    def badges(self, obj):
        return profile_badges(obj)

    @admin.display(description="Features the grant allows")
    def features_allowed(self, obj):
        from apps.platforms.features import feature_platform, features_allowed

        rows = features_allowed(feature_platform(obj.platform, obj.external_id), obj.token_scopes)
        return format_html_join(
            "\n",
            "<div>{}: {}</div>",
            (
                (f["feature"], "allowed" if f["allowed"] else "missing " + ", ".join(f["missingScopes"]))
                for f in rows
            ),
        )

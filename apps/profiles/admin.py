from django.contrib import admin
from django.utils.html import format_html_join

from .models import SocialProfile


@admin.register(SocialProfile)
class SocialProfileAdmin(admin.ModelAdmin):
    list_display = [
        "username",
        "platform",
        "organization",
        "brand",
        "connected",
        "token_status",
        "sandbox",
        "follower_count",
    ]
    list_filter = ["platform", "connected", "token_status", "sandbox", "organization"]
    search_fields = ["username", "display_name", "external_id"]
    list_select_related = ["organization", "brand"]
    exclude = ["access_token_enc", "refresh_token_enc"]
    readonly_fields = ["features_allowed"]

    @admin.display(description="Features the grant allows")
    def features_allowed(self, obj):
        from apps.platforms.features import features_allowed

        rows = features_allowed(obj.platform, obj.token_scopes)
        return format_html_join(
            "\n",
            "<div>{}: {}</div>",
            (
                (f["feature"], "allowed" if f["allowed"] else "missing " + ", ".join(f["missingScopes"]))
                for f in rows
            ),
        )

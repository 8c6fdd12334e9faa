from django.contrib import admin

from .models import SocialProfile


@admin.register(SocialProfile)
class SocialProfileAdmin(admin.ModelAdmin):
    list_display = ["username", "platform", "organization", "brand", "connected", "token_status", "sandbox", "follower_count"]
    list_filter = ["platform", "connected", "token_status", "sandbox", "organization"]
    search_fields = ["username", "display_name", "external_id"]
    list_select_related = ["organization", "brand"]
    exclude = ["access_token_enc", "refresh_token_enc"]

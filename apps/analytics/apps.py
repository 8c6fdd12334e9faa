from django.apps import AppConfig


class AnalyticsConfig(AppConfig):
    name = "apps.analytics"
    label = "analytics"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # a profile without posting times is queued at its best hours (its history, else the
        # platform's defaults): publishing asks, analytics answers
        from apps.content.serializers import register_analytics_reader
        from apps.publishing import services

        from .reports import best_times_for
        from .selectors import latest_for_content

        services.register_fallback_slots(best_times_for)
        # GET /v1/content/{id} shows the content's latest analytics: content asks, analytics answers
        register_analytics_reader(latest_for_content)

from django.apps import AppConfig


class AnalyticsConfig(AppConfig):
    name = "apps.analytics"
    label = "analytics"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # a profile without posting times is queued at its best hours (its history, else the
        # platform's defaults): publishing asks, analytics answers
        from apps.publishing import services

        from .reports import best_times_for

        services.register_fallback_slots(best_times_for)

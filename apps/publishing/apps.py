from django.apps import AppConfig


class PublishingConfig(AppConfig):
    name = "apps.publishing"
    label = "publishing"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from . import receivers  # noqa: F401  (connects to content's signals)

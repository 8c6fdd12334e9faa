from django.apps import AppConfig


class MediaConfig(AppConfig):
    name = "apps.media"
    label = "media"
    default_auto_field = "django.db.models.BigAutoField"

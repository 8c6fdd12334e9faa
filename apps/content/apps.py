from django.apps import AppConfig


class ContentConfig(AppConfig):
    name = "apps.content"
    label = "content"
    default_auto_field = "django.db.models.BigAutoField"

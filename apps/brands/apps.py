from django.apps import AppConfig


class BrandsConfig(AppConfig):
    name = "apps.brands"
    label = "brands"
    default_auto_field = "django.db.models.BigAutoField"

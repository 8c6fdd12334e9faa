from django.apps import AppConfig


class CoreConfig(AppConfig):
    name = "apps.core"
    label = "core"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from . import (
            schema,  # noqa: F401  (registers the OpenAPI auth extensions)
            secrets_policy,  # noqa: F401  (registers the deploy checks)
        )

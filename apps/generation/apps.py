from django.apps import AppConfig


class GenerationConfig(AppConfig):
    """The engines and the pipeline (no models: the rows it writes are content's)."""

    name = "apps.generation"
    label = "generation"

    def ready(self) -> None:
        from apps.content import ports

        from .services import Port

        ports.plug(Port())

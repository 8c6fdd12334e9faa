from django.apps import AppConfig


class ContentConfig(AppConfig):
    name = "apps.content"
    label = "content"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from apps.brands.signals import brand_retiring
        from apps.events import subjects

        from .models import Batch, Content
        from .selectors import subject_owned
        from .services import content_move_brand

        # websockets may follow one content or one batch of their organization
        subjects.register("content", lambda org, pk: subject_owned(Content, org, pk))
        subjects.register("batch", lambda org, pk: subject_owned(Batch, org, pk))

        def move(sender, *, brand, successor, **kwargs) -> None:
            content_move_brand(brand=brand, successor=successor)

        brand_retiring.connect(move, dispatch_uid="content.content_move_brand", weak=False)

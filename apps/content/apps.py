from django.apps import AppConfig


class ContentConfig(AppConfig):
    name = "apps.content"
    label = "content"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from apps.brands.signals import brand_retiring
        from apps.events import catalog, subjects

        from . import states
        from .models import Batch, Content
        from .selectors import subject_owned
        from .serializers import PUBLICATION_STATUSES
        from .services import content_move_brand

        # websockets may follow one content or one batch of their organization
        subjects.register("content", lambda org, pk: subject_owned(Content, org, pk))
        subjects.register("batch", lambda org, pk: subject_owned(Batch, org, pk))
        # the statuses events carry, in each family's words (the websocket renders them so)
        catalog.vocabulary(
            "content", states.STATUSES, {"v1": states.FAMILY_A_WORDS, "api": states.FAMILY_B_WORDS}
        )
        catalog.vocabulary("batch", (Batch.RUNNING, Batch.COMPLETED))
        catalog.vocabulary("publication", PUBLICATION_STATUSES)

        def move(sender, *, brand, successor, **kwargs) -> None:
            content_move_brand(brand=brand, successor=successor)

        brand_retiring.connect(move, dispatch_uid="content.content_move_brand", weak=False)

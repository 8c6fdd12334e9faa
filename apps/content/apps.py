from django.apps import AppConfig


class ContentConfig(AppConfig):
    name = "apps.content"
    label = "content"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from apps.brands.signals import brand_retiring

        from .services import content_move_brand

        def move(sender, *, brand, successor, **kwargs) -> None:
            content_move_brand(brand=brand, successor=successor)

        brand_retiring.connect(move, dispatch_uid="content.content_move_brand", weak=False)

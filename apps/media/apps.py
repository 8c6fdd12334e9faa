from django.apps import AppConfig


class MediaConfig(AppConfig):
    name = "apps.media"
    label = "media"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from apps.brands.signals import brand_retiring

        from .services import media_move_brand

        def move(sender, *, brand, successor, **kwargs) -> None:
            media_move_brand(brand=brand, successor=successor)

        brand_retiring.connect(move, dispatch_uid="media.media_move_brand", weak=False)

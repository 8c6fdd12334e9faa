from django.apps import AppConfig


class ProfilesConfig(AppConfig):
    name = "apps.profiles"
    label = "profiles"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from apps.brands.signals import brand_retiring
        from apps.events import catalog

        from .models import TOKEN_STATUSES
        from .services import profiles_move_brand

        def move(sender, *, brand, successor, **kwargs) -> None:
            profiles_move_brand(brand=brand, successor=successor)

        brand_retiring.connect(move, dispatch_uid="profiles.profiles_move_brand", weak=False)
        catalog.vocabulary("token", TOKEN_STATUSES)  # profile.token_expired's `status`

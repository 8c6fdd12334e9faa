from django.apps import AppConfig


class BrandsConfig(AppConfig):
    name = "apps.brands"
    label = "brands"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from apps.accounts.signals import organization_provisioned

        from .services import brand_ensure_default

        def ensure_default_brand(sender, *, organization, **kwargs) -> None:
            brand_ensure_default(organization=organization)

        organization_provisioned.connect(
            ensure_default_brand, dispatch_uid="brands.ensure_default_brand", weak=False
        )

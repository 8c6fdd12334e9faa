from django.apps import AppConfig


class EventsConfig(AppConfig):
    name = "apps.events"
    label = "events"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from apps.accounts.signals import credential_revoked

        from .connections import close_sockets_of

        credential_revoked.connect(close_sockets_of, dispatch_uid="events.close_sockets_of", weak=False)

from django.apps import AppConfig


class WebhooksConfig(AppConfig):
    name = "apps.webhooks"
    label = "webhooks"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from apps.events.dispatch import Subscriber, subscribe

        from .services import deliveries_create_for_events, deliveries_kick

        def kick(delivery_ids) -> None:
            if delivery_ids:
                deliveries_kick(delivery_ids=delivery_ids)

        # each claimed event gets its deliveries in the claim's transaction; they are sent after the fan-out
        subscribe(
            Subscriber(
                "webhooks", claimed=lambda events: deliveries_create_for_events(events=events), sent=kick
            )
        )

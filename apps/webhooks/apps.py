from django.apps import AppConfig


class WebhooksConfig(AppConfig):
    name = "apps.webhooks"
    label = "webhooks"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from apps.events.dispatch import Subscriber, subscribe
        from apps.generation.predictions import read_recorded_webhooks_with

        from .selectors import inbound_payload
        from .services import deliveries_create_for_events, deliveries_kick

        # a provider's prediction may end before its row exists: generation reads its recorded webhook
        read_recorded_webhooks_with(inbound_payload)

        # a CSV import's media URLs are fetched through the webhooks' SSRF-checked client
        from apps.publishing.services.importing import fetch_media_with

        from .sending import fetch_checked

        fetch_media_with(fetch_checked)

        def kick(delivery_ids) -> None:
            if delivery_ids:
                deliveries_kick(delivery_ids=delivery_ids)

        # each claimed event gets its deliveries in the claim's transaction; they are sent after the fan-out
        subscribe(
            Subscriber(
                "webhooks", claimed=lambda events: deliveries_create_for_events(events=events), sent=kick
            )
        )

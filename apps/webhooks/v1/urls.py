from ..urls import routes
from .views import DeliveryViewSet, WebhookViewSet

urlpatterns = routes(WebhookViewSet, DeliveryViewSet)

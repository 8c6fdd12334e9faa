from apps.core.routers import Router

from .views import MediaViewSet

router = Router()
router.register("media", MediaViewSet, basename="api-media")
urlpatterns = router.urls

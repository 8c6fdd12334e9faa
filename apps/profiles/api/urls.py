from apps.core.routers import Router

from .views import ProfileViewSet

router = Router()
router.register("profiles", ProfileViewSet, basename="api-profiles")
urlpatterns = router.urls

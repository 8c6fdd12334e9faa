from apps.core.routers import Router

from .views import BrandViewSet

router = Router()
router.register("brands", BrandViewSet, basename="api-brands")
urlpatterns = router.urls

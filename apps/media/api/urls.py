from apps.core.routers import Router

from .views import BrandMediaViewSet, MediaViewSet

router = Router()
router.register("media", MediaViewSet, basename="api-media")
#: a brand's logo and reference images (this app's rows under the brand's path, issue 11): only
#: the viewset's actions are routed, at the paths and names they had on the brands router
router.register("brands", BrandMediaViewSet, basename="api-brands")
urlpatterns = router.urls

from apps.core.routers import Router

from .views import BrandProfileViewSet, ProfileViewSet

router = Router()
router.register("profiles", ProfileViewSet, basename="api-profiles")
#: a brand's profiles (this app's rows under the brand's path, issue 11): only the viewset's
#: action is routed, at the path and name it had on the brands router
router.register("brands", BrandProfileViewSet, basename="api-brands")
urlpatterns = router.urls

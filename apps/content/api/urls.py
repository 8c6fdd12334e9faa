from apps.core.routers import Router

from .views import BatchViewSet, ContentViewSet, EventViewSet, ScheduleViewSet, TagViewSet

router = Router()
# content/schedules before content, so that "schedules" is not taken for a content id
router.register("content/schedules", ScheduleViewSet, basename="api-content-schedules")
router.register("content", ContentViewSet, basename="api-content")
router.register("tags", TagViewSet, basename="api-tags")
router.register("events", EventViewSet, basename="api-events")
router.register("batch", BatchViewSet, basename="api-batch")
urlpatterns = router.urls

from apps.core.routers import Router

from .views import (
    ApprovalLinkViewSet,
    BatchViewSet,
    ContentViewSet,
    EventViewSet,
    ScheduleViewSet,
    TagViewSet,
)

router = Router()
# content/schedules before content, so that "schedules" is not taken for a content id
router.register("content/schedules", ScheduleViewSet, basename="api-content-schedules")
router.register("content", ContentViewSet, basename="api-content")
router.register("tags", TagViewSet, basename="api-tags")
router.register("events", EventViewSet, basename="api-events")
router.register("batch", BatchViewSet, basename="api-batch")
router.register("approval-links", ApprovalLinkViewSet, basename="api-approval-links")
urlpatterns = router.urls

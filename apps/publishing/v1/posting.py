"""Family A: POST /v1/content/{id}/schedule and /publish."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework import serializers

from apps.content import selectors as content_selectors
from apps.content.v1 import serializers as content_s
from apps.core.serializers import StrictSerializer
from apps.core.views import V1ViewSet

from .. import services
from ..permissions import POSTING
from ..selectors import profiles_for_publishing
from ..serializers import FORCE_HELP, SYNTHETIC_HELP, TIKTOK_HELP, TikTokChoicesInput


class ScheduleOptions(StrictSerializer):
    crossPost = serializers.BooleanField(required=False, default=False)
    firstComment = serializers.CharField(required=False, allow_blank=True, max_length=2200)
    timezone = serializers.CharField(required=False, max_length=64)
    containsSyntheticMedia = serializers.BooleanField(
        required=False,
        help_text=SYNTHETIC_HELP,
    )
    tiktok = TikTokChoicesInput(required=False, help_text=TIKTOK_HELP)


#: `profiles`, unless `options.crossPost` is true (apps.publishing.selectors.profiles_for_publishing),
#: stated as the bodies refused (no `profiles` and no `options.crossPost: true`): generators read a
#: top-level `not` as no constraint on the body's type, while an `anyOf` of partial schemas made
#: openapi-python-client drop the operation and openapi-typescript type the body `unknown`
PROFILES_RULE = {
    "not": {
        "allOf": [
            {"not": {"required": ["profiles"]}},
            {
                "not": {
                    "required": ["options"],
                    "properties": {
                        "options": {"required": ["crossPost"], "properties": {"crossPost": {"enum": [True]}}}
                    },
                }
            },
        ]
    }
}
PROFILES_HELP = (
    "The profiles to post to (at least one). Leave it out only with `options.crossPost: true`, which "
    "posts to every connected profile of the content's brand on its platforms."
)


class ScheduleInput(StrictSerializer):
    scheduledFor = serializers.CharField(max_length=64)
    profiles = serializers.ListField(
        child=serializers.CharField(max_length=64),
        required=False,
        min_length=1,
        max_length=50,
        help_text=PROFILES_HELP,
    )
    options = ScheduleOptions(required=False)
    force = serializers.BooleanField(
        required=False,
        default=False,
        help_text=FORCE_HELP,
    )
    openapi_rules = PROFILES_RULE


class PublishOptions(StrictSerializer):
    crossPost = serializers.BooleanField(required=False, default=False)
    notifyFollowers = serializers.BooleanField(required=False, default=True)
    containsSyntheticMedia = serializers.BooleanField(
        required=False,
        help_text=SYNTHETIC_HELP,
    )
    tiktok = TikTokChoicesInput(required=False, help_text=TIKTOK_HELP)


class PublishInput(StrictSerializer):
    profiles = serializers.ListField(
        child=serializers.CharField(max_length=64),
        required=False,
        min_length=1,
        max_length=50,
        help_text=PROFILES_HELP,
    )
    options = PublishOptions(required=False)
    force = serializers.BooleanField(
        required=False,
        default=False,
        help_text=FORCE_HELP,
    )
    openapi_rules = PROFILES_RULE


class ContentPublishingViewSet(V1ViewSet):
    id_kind = "content"
    policy = POSTING

    def get_detail_queryset(self):
        """The path's content, with all it presents (read again after the change)."""
        return content_selectors.content_get(organization=self.actor.organization)

    def _profiles(self, content, data):
        options = data.get("options") or {}
        return profiles_for_publishing(
            organization=self.actor.organization,
            content=content,
            raw_ids=data.get("profiles"),
            cross_post=options.get("crossPost", False),
            kind="profile",
        )

    @extend_schema(
        request=ScheduleInput, responses=content_s.ContentOutput, operation_id="v1_content_schedule"
    )
    def schedule(self, request, pk=None):
        content = self.get_object()
        data = self.validated(ScheduleInput)
        options = dict(data.get("options") or {})
        services.publications_schedule(
            content=content,
            profiles=self._profiles(content, data),
            scheduled_for=data["scheduledFor"],
            options=options,
            actor=self.actor,
            force=data["force"],
        )
        return self.respond(content_s.present_content(self.get_object(), request))

    @extend_schema(
        request=PublishInput, responses={202: content_s.ContentOutput}, operation_id="v1_content_publish"
    )
    def publish(self, request, pk=None):
        content = self.get_object()
        data = self.validated(PublishInput)
        services.publications_publish_now(
            content=content,
            profiles=self._profiles(content, data),
            options=dict(data.get("options") or {}),
            actor=self.actor,
            force=data["force"],
        )
        return self.respond(content_s.present_content(self.get_object(), request), status=202)

"""Family B: /api/posts/scheduled, /api/posts/queue, /api/posts/publish."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.decorators import action

from apps.content import selectors as content_selectors
from apps.content.api import serializers as content_s
from apps.content.serializers import PublicationOutput
from apps.core.serializers import StrictSerializer
from apps.core.views import ApiViewSet
from apps.profiles.models import SocialProfile

from .. import services
from ..filters import PublicationFilter, PublicationProfileFilter
from ..models import Publication
from ..permissions import POSTING
from ..selectors import profiles_for_publishing, publication_rows
from ..serializers import FORCE_HELP, SYNTHETIC_HELP, TIKTOK_HELP, TikTokChoicesInput


class PostScheduleInput(StrictSerializer):
    contentId = serializers.CharField(max_length=64)
    profileIds = serializers.ListField(
        child=serializers.CharField(max_length=64), min_length=1, max_length=50
    )
    scheduledFor = serializers.CharField(max_length=64)
    timezone = serializers.CharField(required=False, max_length=64)
    firstComment = serializers.CharField(required=False, allow_blank=True, max_length=2200)
    containsSyntheticMedia = serializers.BooleanField(
        required=False,
        help_text=SYNTHETIC_HELP,
    )
    tiktok = TikTokChoicesInput(required=False, help_text=TIKTOK_HELP)
    force = serializers.BooleanField(
        required=False,
        default=False,
        help_text=FORCE_HELP,
    )


class QueueInput(StrictSerializer):
    contentId = serializers.CharField(max_length=64)
    profileId = serializers.CharField(max_length=64)
    tiktok = TikTokChoicesInput(required=False, help_text=TIKTOK_HELP)


class PublishInput(StrictSerializer):
    contentId = serializers.CharField(max_length=64)
    profileIds = serializers.ListField(
        child=serializers.CharField(max_length=64), min_length=1, max_length=50
    )
    containsSyntheticMedia = serializers.BooleanField(
        required=False,
        help_text=SYNTHETIC_HELP,
    )
    tiktok = TikTokChoicesInput(required=False, help_text=TIKTOK_HELP)
    force = serializers.BooleanField(
        required=False,
        default=False,
        help_text=FORCE_HELP,
    )


class QueueOutput(serializers.Serializer):
    publications = PublicationOutput(many=True)
    nextSlots = serializers.DictField(
        child=serializers.DateTimeField(allow_null=True),
        help_text="Each connected profile's id: its next free posting slot (null: none)",
    )
    nextSlotSources = serializers.DictField(
        child=serializers.ChoiceField(
            choices=["postingTimes", "history", "platform-default"], allow_null=True
        ),
        help_text="Where each next slot comes from: the profile's postingTimes, else the best hours of the week "
        "from its own posts' engagement (history) or, with fewer than 10 measured posts, the "
        "platform's usual best hours (platform-default); null: no slot",
    )


class PostsViewSet(ApiViewSet):
    queryset = publication_rows()
    output_serializer = PublicationOutput
    id_kind = "publication"
    lookup_url_kwarg = "publication_id"  # DELETE /api/posts/scheduled/{publication_id}
    policy = POSTING
    sort_fields = {"scheduledFor": "scheduled_for", "createdAt": "created_at"}
    default_sort = ("scheduled_for", "asc")
    filterset_class = PublicationFilter

    def _of_profile(self):
        """The caller's publications, of `profileId` when it is named (the queue, a cancel)."""
        return self.filtered(self.get_queryset(), PublicationProfileFilter)

    def get_detail_queryset(self):
        return self._of_profile()

    def _content(self, raw):
        return self.ref(
            content_selectors.content_get(organization=self.actor.organization),
            raw,
            "content",
            "contentId",
            message="Unknown content.",
        )  # contentId is required by every input here

    @extend_schema(
        methods=["GET"],
        responses=PublicationOutput(many=True),
        operation_id="api_posts_scheduled_list",
    )
    @extend_schema(
        methods=["POST"],
        request=PostScheduleInput,
        responses={201: content_s.ContentOutput},
        operation_id="api_posts_schedule",
    )
    @action(detail=False, methods=["get", "post"], url_path="scheduled")
    def scheduled(self, request):
        if request.method == "GET":  # the scheduled ones, through the view's filters, sort and paging
            scheduled = self.get_queryset().filter(status=Publication.SCHEDULED)
            page = self.paginate_queryset(self.filter_queryset(scheduled))
            return self.get_paginated_response(self.get_serializer(page, many=True).data)
        data = self.validated(PostScheduleInput)
        content = self._content(data["contentId"])
        profiles = profiles_for_publishing(
            organization=self.actor.organization, content=content, raw_ids=data["profileIds"]
        )
        options = {
            k: data[k] for k in ("timezone", "firstComment", "containsSyntheticMedia", "tiktok") if k in data
        }
        services.publications_schedule(
            content=content,
            profiles=profiles,
            scheduled_for=data["scheduledFor"],
            options=options,
            actor=self.actor,
            force=data["force"],
        )
        return self.respond(content_s.present_content(self._content(content.pk), request), status=201)

    @extend_schema(responses={204: None}, operation_id="api_posts_scheduled_cancel")
    @action(detail=False, methods=["delete"], url_path=r"scheduled/(?P<publication_id>[^/]+)")
    def cancel(self, request, publication_id=None):
        services.publication_cancel(publication=self.get_object())
        return self.respond(None, status=204)

    @extend_schema(methods=["GET"], responses=QueueOutput, operation_id="api_posts_queue")
    @extend_schema(
        methods=["POST"],
        request=QueueInput,
        responses={201: content_s.ContentOutput},
        operation_id="api_posts_queue_add",
    )
    @action(detail=False, methods=["get", "post"], url_path="queue")
    def queue(self, request):
        if request.method == "POST":
            data = self.validated(QueueInput)
            content = self._content(data["contentId"])
            [profile] = profiles_for_publishing(
                organization=self.actor.organization, content=content, raw_ids=[data["profileId"]]
            )
            services.queue_add(
                content=content,
                profile=profile,
                options={"tiktok": data["tiktok"]} if "tiktok" in data else None,
            )
            return self.respond(content_s.present_content(self._content(content.pk), request), status=201)
        pubs = self._of_profile().upcoming().order_by("scheduled_for", "created_at")[:100]
        profiles = SocialProfile.objects.for_organization(self.actor.organization).filter(connected=True)
        found = services.next_free_slots(profiles=profiles)
        next_slots = {
            pk: slot.isoformat().replace("+00:00", "Z") if slot else None for pk, (slot, _) in found.items()
        }
        sources = {pk: source for pk, (_, source) in found.items()}
        return self.respond(
            {
                "publications": self.get_serializer(pubs, many=True).data,
                "nextSlots": next_slots,
                "nextSlotSources": sources,
            }
        )

    @extend_schema(
        request=PublishInput, responses={202: content_s.ContentOutput}, operation_id="api_posts_publish"
    )
    @action(detail=False, methods=["post"], url_path="publish")
    def publish(self, request):
        data = self.validated(PublishInput)
        content = self._content(data["contentId"])
        profiles = profiles_for_publishing(
            organization=self.actor.organization, content=content, raw_ids=data["profileIds"]
        )
        options = {k: data[k] for k in ("containsSyntheticMedia", "tiktok") if k in data}
        services.publications_publish_now(
            content=content, profiles=profiles, options=options, actor=self.actor, force=data["force"]
        )
        return self.respond(content_s.present_content(self._content(content.pk), request), status=202)

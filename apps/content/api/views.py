"""Family B content endpoints (/api/content..., /api/tags, /api/events, /api/batch)."""

from __future__ import annotations

import uuid
from collections.abc import Sequence

from drf_spectacular.utils import extend_schema, extend_schema_view
from rest_framework.decorators import action

from apps.brands.models import Brand
from apps.core.views import ApiViewSet, ListMixin
from apps.media.models import Kind, MediaAsset
from apps.profiles.models import SocialProfile

from .. import filters, permissions, selectors, services
from .. import serializers as shared
from ..models import ApprovalLink, Content, ContentSchedule
from ..services import GenerationInput
from . import serializers as s


class _ContentBase(ApiViewSet):
    policy = permissions.CONTENT

    def profile(self, raw, field: str):
        return self.ref(
            SocialProfile.objects.for_organization(self.actor.organization).select_related("brand"),
            raw,
            "profile",
            field,
        )

    def generation_input(self, data: dict, *, prompt: str, profile=None, platforms=None) -> GenerationInput:
        org = self.actor.organization
        media = MediaAsset.objects.for_organization(org)
        # each id given must name its object (an unknown one is a 400 even when the other wins)
        upload = self.ref(media.filter(kind=Kind.UPLOAD), data.get("mediaId"), "media", "mediaId")
        reference = self.ref(
            media.filter(kind=Kind.REFERENCE), data.get("referenceImageId"), "media", "referenceImageId"
        )
        source = upload or reference
        tags = self.refs(selectors.tag_list(organization=org), data.get("tagIds", []), "tag", "tagIds")
        return GenerationInput(
            prompt=prompt,
            platforms=platforms or ([profile.platform] if profile else []),
            brand=services.generation_brand(organization=org, profile=profile),
            profile=profile,
            generation_mode=data["generationMode"],
            post_type=data["postType"],
            media_type=data["media"],
            dimensions=data.get("dimensions"),
            source_media=source,
            settings=dict(data.get("settings") or {}),
            tags=tags,
            campaign=self.ref(
                selectors.campaign_list(organization=org), data.get("campaignId"), "campaign", "campaignId"
            ),
        )


@extend_schema_view(list=extend_schema(operation_id="api_content_list"))
class ContentViewSet(ListMixin, _ContentBase):
    queryset = selectors.content_rows()
    output_serializer = s.ContentOutput
    id_kind = "content"
    action_buckets = {
        "create": "generation",
        "generate": "generation",
        "regenerate": "generation",
        "edit_image": "generation",
        "multi_platform": "generation",
        "intelligence": "generation",
    }
    sort_fields = {
        "createdAt": "created_at",
        "updatedAt": "updated_at",
        "scheduledFor": "scheduled_for",
        "publishedAt": "published_at",
        "status": "status",
    }
    default_sort = ("created_at", "desc")
    filterset_class = filters.ContentFilter

    def get_detail_queryset(self):
        """One content with all it presents (variants, media, publications, tags)."""
        return selectors.content_get(organization=self.actor.organization, tags=True)

    def _content(self, pk):
        """A fresh read of a content this request made or changed."""
        return self.lookup(self.get_detail_queryset(), pk)

    def _present(self, content, status=200, **kwargs):
        fresh = self._content(content.pk)
        return self.respond(s.present_content(fresh, self.request, **kwargs), status=status)

    @extend_schema(request=s.CreateInput, responses={201: s.ContentOutput}, operation_id="api_content_create")
    def create(self, request):
        data = self.validated(s.CreateInput)
        profile = self.profile(data["socialProfileId"], "socialProfileId")
        inp = self.generation_input(
            data, prompt=data["prompt"], profile=profile, platforms=[data.get("platform") or profile.platform]
        )
        content = self.record_effect(
            lambda: services.content_request_generation(
                organization=self.actor.organization, actor=self.actor, inp=inp
            ),
            kind="content",
            status=201,
        )
        # the spec shows create answering `generating`: the work has been handed to the worker
        return self.respond(
            s.present_content(self._content(content.pk), request, status="generating"), status=201
        )

    @extend_schema(
        request=s.GenerateInput, responses={202: s.ContentOutput}, operation_id="api_content_generate"
    )
    @action(detail=False, methods=["post"], url_path="generate")
    def generate(self, request):
        data = self.validated(s.GenerateInput)
        profile = self.profile(data["profileId"], "profileId")
        inp = self.generation_input(data, prompt=data["task"], profile=profile)
        content = self.record_effect(
            lambda: services.content_request_generation(
                organization=self.actor.organization, actor=self.actor, inp=inp
            ),
            kind="content",
            status=202,
        )
        return self._present(content, status=202)

    @extend_schema(
        request=s.MultiPlatformInput,
        responses={202: s.ContentOutput(many=True)},
        operation_id="api_content_multi_platform",
    )
    @action(detail=False, methods=["post"], url_path="multi-platform")
    def multi_platform(self, request):
        """One content per profile (see `services.content_request_multi_platform`); 202 with the list."""
        data = self.validated(s.MultiPlatformInput)
        profiles = [self.profile(raw, "profileIds") for raw in data["profileIds"]]
        inp = self.generation_input(
            data, prompt=data["prompt"], profile=profiles[0]
        )  # each content takes its profile's brand
        created = self.record_effect(
            lambda: services.content_request_multi_platform(
                organization=self.actor.organization,
                actor=self.actor,
                profiles=profiles,
                inp=inp,
            ),
            kind="content",
            status=202,
        )
        return self._present_many([c.pk for c in created], status=202)

    def _present_many(self, pks: Sequence[uuid.UUID], status: int):
        fresh = self.get_detail_queryset().filter(pk__in=pks)
        by_id = {c.pk: c for c in fresh}
        return self.respond(
            [s.present_content(by_id[pk], self.request) for pk in pks if pk in by_id], status=status
        )

    def present_effect(self, effect):
        """A retry of a create/generate whose first request died: the content it created, as
        it is now, never a second generation."""
        pks = [uuid.UUID(i) for i in effect.ids]
        if effect.many:
            return self._present_many(pks, status=effect.status)
        return self._present(self._content(pks[0]), status=effect.status)

    @extend_schema(request=s.IdeasInput, responses=s.IdeasOutput, operation_id="api_content_intelligence")
    @action(detail=False, methods=["post"], url_path="intelligence")
    def intelligence(self, request):
        data = self.validated(s.IdeasInput)
        org = self.actor.organization
        profile = self.profile(data.get("profileId"), "profileId")
        brand = self.ref(Brand.objects.for_organization(org), data.get("brandId"), "brand", "brandId")
        brand = services.generation_brand(organization=org, brand=brand, profile=profile)
        ideas = services.content_ideas(
            organization=org, brand=brand, profile=profile, topic=data.get("topic", ""), count=data["count"]
        )
        return self.respond(
            {**ideas, "brandId": str(brand.pk), "profileId": str(profile.pk) if profile else None}
        )

    @extend_schema(request=s.OptimizeInput, responses=s.OptimizeOutput, operation_id="api_content_optimize")
    @action(detail=False, methods=["post"], url_path="optimize")
    def optimize(self, request):
        data = self.validated(s.OptimizeInput)
        return self.respond(
            services.caption_optimize(
                caption=data["caption"],
                platform=data["platform"],
                hashtags=data.get("hashtags"),
                post_type=data["postType"],
                media_type=data["mediaType"],
            )
        )

    @extend_schema(responses=s.ContentOutput, operation_id="api_content_retrieve")
    def retrieve(self, request, pk=None):
        return self.respond(s.present_content(self.get_object(), request))

    @extend_schema(request=s.UpdateInput, responses=s.ContentOutput, operation_id="api_content_update")
    def update(self, request, pk=None):
        content = self.get_object()
        data = self.validated(s.UpdateInput)
        org = self.actor.organization
        kwargs = {}
        if "tagIds" in data:
            kwargs["tags"] = self.refs(selectors.tag_list(organization=org), data["tagIds"], "tag", "tagIds")
        if "campaignId" in data:
            kwargs["campaign"] = self.ref(
                selectors.campaign_list(organization=org), data["campaignId"], "campaign", "campaignId"
            )
        content = services.content_update(
            content=content,
            variants=data.get("content"),
            status=data.get("status"),
            ai_disclosure=data.get("aiGenerated"),
            actor=self.actor,
            **kwargs,
        )
        return self._present(content)

    @extend_schema(responses={204: None}, operation_id="api_content_destroy")
    def destroy(self, request, pk=None):
        content = self.get_object()
        permissions.require_content_delete(self.actor, content)
        services.content_delete(content=content)
        return self.respond(None, status=204)

    @extend_schema(request=None, responses=s.ContentOutput, operation_id="api_content_approve")
    @action(detail=True, methods=["post"], url_path="approve")
    def approve(self, request, pk=None):
        return self._present(services.content_approve(content=self.get_object(), actor=self.actor))

    @extend_schema(
        request=shared.ApprovalLinkInput,
        responses={201: shared.ApprovalLinkOutput},
        operation_id="api_content_approval_links_create",
        description="A signed link for someone outside the organization to approve this content (and "
        "`contentIds`) or ask for changes, without a login. It dies when it expires, when it is "
        "revoked (DELETE /api/approval-links/:id) or when the content's text or media change.",
    )
    @action(detail=True, methods=["post"], url_path="approval-links")
    def approval_links(self, request, pk=None):
        content = self.get_object()
        data = self.validated(shared.ApprovalLinkInput)
        org = self.actor.organization
        others = self.refs(Content.objects.for_organization(org), data["contentIds"], "content", "contentIds")
        link = services.approval_link_create(
            organization=org,
            contents=[content, *others],
            actor=self.actor,
            days=data["expiresInDays"],
            label=data["label"],
        )
        return self.respond(shared.present_approval_link(link, family="api"), status=201)

    @extend_schema(request=s.RejectInput, responses=s.ContentOutput, operation_id="api_content_reject")
    @action(detail=True, methods=["post"], url_path="reject")
    def reject(self, request, pk=None):
        content = self.get_object()
        data = self.validated(s.RejectInput)
        return self._present(
            services.content_reject(content=content, reason=data.get("reason", ""), actor=self.actor)
        )

    @extend_schema(
        request=s.RegenerateInput,
        responses={202: s.ContentOutput, 200: s.ContentOutput},
        operation_id="api_content_regenerate",
    )
    @action(detail=True, methods=["post"], url_path="regenerate")
    def regenerate(self, request, pk=None):
        content = self.get_object()
        data = self.validated(s.RegenerateInput)
        if data["scope"] == "image":  # a new design, the words kept (issue 30)
            return self._present(
                services.content_new_design(content=content, design=data.get("design"), actor=self.actor)
            )
        content = services.content_regenerate(content=content, intent=data.get("intent"), actor=self.actor)
        return self._present(content, status=202)

    @extend_schema(request=s.EditImageInput, responses=s.ContentOutput, operation_id="api_content_edit_image")
    @action(detail=True, methods=["post"], url_path="edit-image")
    def edit_image(self, request, pk=None):
        content = self.get_object()
        data = self.validated(s.EditImageInput)
        return self._present(services.content_edit_image(content=content, prompt=data["prompt"]))

    @extend_schema(request=None, responses=s.ContentOutput, operation_id="api_content_edit_image_undo")
    @action(detail=True, methods=["post"], url_path="edit-image/undo")
    def undo_image_edit(self, request, pk=None):
        return self._present(services.content_undo_image_edit(content=self.get_object()))


@extend_schema_view(list=extend_schema(operation_id="api_content_schedules_list"))
class ScheduleViewSet(ListMixin, _ContentBase):
    """Planned posts: a date and a task per profile, generated later (POST /api/batch/generate)."""

    queryset = selectors.schedule_rows()
    output_serializer = s.ScheduleOutput
    id_kind = "schedule"
    sort_fields = {"scheduledDate": "scheduled_date", "createdAt": "created_at"}
    default_sort = ("scheduled_date", "asc")
    filterset_class = filters.ScheduleFilter

    @extend_schema(
        request=s.ScheduleInput,
        responses={201: s.ScheduleOutput},
        operation_id="api_content_schedules_create",
    )
    def create(self, request):
        data = self.validated(s.ScheduleInput)
        profile = self.profile(data["socialProfileId"], "socialProfileId")
        schedule = services.schedule_plan(
            organization=self.actor.organization,
            profile=profile,
            scheduled_date=data["scheduledDate"],
            task=data["task"],
            generation_mode=data["generationMode"],
            platform=data.get("platform"),
            post_type=data["postType"],
            media_type=data["media"],
            dimensions=data.get("dimensions"),
        )
        return self.respond(s.present_schedule(schedule), status=201)


@extend_schema_view(list=extend_schema(operation_id="api_tags_list"))
class TagViewSet(ListMixin, _ContentBase):
    queryset = selectors.tag_rows()
    output_serializer = s.TagOutput
    id_kind = "tag"
    sort_fields = {"name": "name", "createdAt": "created_at"}
    default_sort = ("name", "asc")
    search_fields = ("name",)

    @extend_schema(responses=s.TagOutput, operation_id="api_tags_retrieve")
    def retrieve(self, request, pk=None):
        return self.respond(s.present_tag(self.get_object()))

    @extend_schema(request=s.TagInput, responses={201: s.TagOutput}, operation_id="api_tags_create")
    def create(self, request):
        data = self.validated(s.TagInput)
        tag = services.tag_create(
            organization=self.actor.organization, name=data["name"], color=data.get("color", "")
        )
        return self.respond(s.present_tag(tag), status=201)

    @extend_schema(request=s.TagUpdateInput, responses=s.TagOutput, operation_id="api_tags_update")
    def update(self, request, pk=None):
        tag = self.get_object()
        data = self.validated(s.TagUpdateInput)
        return self.respond(
            s.present_tag(services.tag_update(tag=tag, name=data.get("name"), color=data.get("color")))
        )

    @extend_schema(responses={204: None}, operation_id="api_tags_destroy")
    def destroy(self, request, pk=None):
        services.tag_delete(tag=self.get_object())
        return self.respond(None, status=204)


@extend_schema_view(list=extend_schema(operation_id="api_events_list"))
class EventViewSet(ListMixin, _ContentBase):
    """Campaigns and events content can belong to."""

    queryset = selectors.campaign_rows()
    output_serializer = s.EventOutput
    id_kind = "campaign"
    sort_fields = {"createdAt": "created_at", "name": "name", "startsOn": "starts_on", "endsOn": "ends_on"}
    default_sort = ("created_at", "desc")
    search_fields = ("name", "description")

    @extend_schema(responses=s.EventOutput, operation_id="api_events_retrieve")
    def retrieve(self, request, pk=None):
        return self.respond(s.present_event(self.get_object()))

    @extend_schema(request=s.EventInput, responses={201: s.EventOutput}, operation_id="api_events_create")
    def create(self, request):
        data = self.validated(s.EventInput)
        campaign = services.campaign_create(
            organization=self.actor.organization, **s.EventInput.to_fields(data)
        )
        return self.respond(s.present_event(campaign), status=201)

    @extend_schema(request=s.EventUpdateInput, responses=s.EventOutput, operation_id="api_events_update")
    def update(self, request, pk=None):
        campaign = self.get_object()
        data = self.validated(s.EventUpdateInput)
        return self.respond(
            s.present_event(services.campaign_update(campaign=campaign, **s.EventInput.to_fields(data)))
        )

    @extend_schema(responses={204: None}, operation_id="api_events_destroy")
    def destroy(self, request, pk=None):
        services.campaign_delete(campaign=self.get_object())
        return self.respond(None, status=204)


@extend_schema_view(list=extend_schema(responses=s.BatchOutput(many=True), operation_id="api_batch_list"))
class BatchViewSet(ListMixin, _ContentBase):
    queryset = selectors.batch_rows()
    output_serializer = s.BatchOutput
    id_kind = "batch"
    action_buckets = {"generate": "batch"}
    sort_fields = {"createdAt": "created_at"}
    default_sort = ("created_at", "desc")
    filterset_class = filters.BatchFilter

    @extend_schema(responses=s.BatchOutput, operation_id="api_batch_retrieve")
    def retrieve(self, request, pk=None):
        return self.respond(s.present_batch(self.get_object()))

    @extend_schema(
        request=s.BatchGenerateInput, responses={202: s.BatchOutput}, operation_id="api_batch_generate"
    )
    @action(detail=False, methods=["post"], url_path="generate")
    def generate(self, request):
        data = self.validated(s.BatchGenerateInput)
        org = self.actor.organization
        planned = ContentSchedule.objects.for_organization(org).select_related("profile__brand")
        schedules = self.refs(planned, data["scheduleIds"], "schedule", "scheduleIds")
        batch = self.record_effect(
            lambda: services.batch_start(organization=org, schedules=schedules, actor=self.actor),
            kind="batch",
            status=202,
        )
        return self.respond(s.present_batch(batch), status=202)

    def present_effect(self, effect):
        """A retry of a batch whose first request died: that batch, never a second one."""
        batch = self.lookup(self.get_queryset(), effect.ids[0])
        return self.respond(s.present_batch(batch), status=effect.status)


class ApprovalLinkViewSet(ApiViewSet):
    """An outside approver's link: revoke it (its page answers 410 from then on)."""

    queryset = ApprovalLink.objects.all()
    id_kind = "approval_link"
    output_serializer = shared.ApprovalLinkOutput
    policy = permissions.APPROVAL_LINKS
    http_method_names = ["delete"]

    @extend_schema(responses={204: None}, operation_id="api_approval_links_destroy")
    def destroy(self, request, pk=None):
        services.approval_link_revoke(link=self.get_object())
        return self.respond(None, status=204)

"""Family A content endpoints (/v1/content...): thin translations to the content services."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema, extend_schema_view

from apps.brands.models import Brand
from apps.core.views import ListMixin, V1ViewSet

from .. import filters, permissions, selectors, services
from .. import serializers as shared
from ..models import ApprovalLink, Content
from ..services import GenerationInput
from . import serializers as s


@extend_schema_view(list=extend_schema(operation_id="v1_content_list"))
class ContentViewSet(ListMixin, V1ViewSet):
    queryset = selectors.content_rows()
    output_serializer = s.ContentOutput
    id_kind = "content"
    policy = permissions.CONTENT
    action_buckets = {
        "generate": "generation",
        "regenerate": "generation",
        "edit_image": "generation",
        "batch": "batch",
    }
    sort_fields = {
        "createdAt": "created_at",
        "scheduledFor": "scheduled_for",
        "publishedAt": "published_at",
        "status": "status",
    }
    default_sort = ("created_at", "desc")
    filterset_class = filters.ContentFilterA

    def get_detail_queryset(self):
        """One content with all it presents (variants, media, publications)."""
        return selectors.content_get(organization=self.actor.organization)

    def _content(self, pk):
        """A content read again (after a change, or the one a first request created)."""
        return self.lookup(self.get_detail_queryset(), pk)

    def _present(self, content, status=200, **kwargs):
        return self.respond(s.present_content(content, self.request, **kwargs), status=status)

    def _fresh(self, content):
        return self._content(content.pk)

    def _wait_seconds(self) -> float | None:
        return self.validated(s.WaitQuery, self.request.query_params).get("wait")

    @extend_schema(
        request=s.GenerateInput,
        responses={202: s.ContentOutput, 200: s.ContentOutput},
        operation_id="v1_content_generate",
        parameters=[s.WaitQuery],
    )
    def generate(self, request):
        wait = self._wait_seconds()
        data = self.validated(s.GenerateInput)
        settings_in = data.get("settings") or {}
        media = data.get("media") or {}
        brand = self.ref(
            Brand.objects.for_organization(self.actor.organization),
            settings_in.get("brandId"),
            "brand",
            "brand",
            details={"settings": {"brandId": ["Not found."]}},
        )
        inp = GenerationInput(
            prompt=data["prompt"],
            platforms=data["platforms"],
            brand=services.generation_brand(organization=self.actor.organization, brand=brand),
            post_type=media.get("postType", "feed"),
            media_type=media.get("type", "image"),
            dimensions=media.get("dimensions"),
            settings=s.SettingsInput.to_settings(settings_in),
            media_request={k: media[k] for k in ("generate", "style", "count") if k in media},
        )
        content = self.record_effect(
            lambda: services.content_request_generation(
                organization=self.actor.organization, actor=self.actor, inp=inp
            ),
            kind="content",
            status=202,
        )
        return self._generated(content, wait)

    def _generated(self, content, wait: float | None):
        if wait is not None:
            content = selectors.content_wait(content=content, seconds=wait)
            done = content.status not in ("pending", "generating")
            return self._present(content, status=200 if done else 202)
        return self._present(self._fresh(content), status=202)

    def present_effect(self, effect):
        """A retry of a generate whose first request died: the content it created (waited
        for again when the retry asks to wait), never a second generation."""
        return self._generated(self._content(effect.ids[0]), self._wait_seconds())

    @extend_schema(responses=s.ContentOutput, operation_id="v1_content_retrieve")
    def retrieve(self, request, pk=None):
        return self._present(self.get_object(), analytics=True)

    @extend_schema(request=s.UpdateInput, responses=s.ContentOutput, operation_id="v1_content_update")
    def update(self, request, pk=None):
        content = self.get_object()
        data = self.validated(s.UpdateInput)
        content = services.content_update(
            content=content,
            variants=data.get("content"),
            status=data.get("status"),
            ai_disclosure=data.get("aiGenerated"),
            actor=self.actor,
        )
        return self._present(self._fresh(content))

    @extend_schema(responses={204: None}, operation_id="v1_content_destroy")
    def destroy(self, request, pk=None):
        content = self.get_object()
        permissions.require_content_delete(self.actor, content)
        services.content_delete(content=content)
        return self.respond(None, status=204)

    @extend_schema(
        request=shared.ApprovalLinkInput,
        responses={201: shared.ApprovalLinkOutput},
        operation_id="v1_content_approval_links_create",
        description="A signed link for someone outside the organization to approve this content (and "
        "`contentIds`) or ask for changes, without a login. It dies when it expires, when it is "
        "revoked (DELETE /v1/approval-links/{id}) or when the content's text or media change.",
    )
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
        return self.respond(shared.present_approval_link(link, family="v1"), status=201)

    @extend_schema(request=None, responses=s.ContentOutput, operation_id="v1_content_approve")
    def approve(self, request, pk=None):
        content = services.content_approve(content=self.get_object(), actor=self.actor)
        return self._present(self._fresh(content))

    @extend_schema(request=s.RejectInput, responses=s.ContentOutput, operation_id="v1_content_reject")
    def reject(self, request, pk=None):
        data = self.validated(s.RejectInput)
        content = services.content_reject(
            content=self.get_object(), reason=data.get("reason", ""), actor=self.actor
        )
        return self._present(self._fresh(content))

    @extend_schema(
        request=s.RegenerateInput,
        responses={202: s.ContentOutput, 200: s.ContentOutput},
        operation_id="v1_content_regenerate",
    )
    def regenerate(self, request, pk=None):
        content = self.get_object()
        data = self.validated(s.RegenerateInput)
        if data["scope"] == "image":  # a new design, the words kept (issue 30)
            content = services.content_new_design(
                content=content, design=data.get("design"), actor=self.actor
            )
            return self._present(self._fresh(content))
        content = services.content_regenerate(content=content, intent=data.get("intent"), actor=self.actor)
        return self._present(self._fresh(content), status=202)

    @extend_schema(request=s.EditImageInput, responses=s.ContentOutput, operation_id="v1_content_edit_image")
    def edit_image(self, request, pk=None):
        content = self.get_object()
        data = self.validated(s.EditImageInput)
        content = services.content_edit_image(content=content, prompt=data["prompt"])
        return self._present(self._fresh(content))

    @extend_schema(request=None, responses=s.ContentOutput, operation_id="v1_content_edit_image_undo")
    def undo_image_edit(self, request, pk=None):
        content = services.content_undo_image_edit(content=self.get_object())
        return self._present(self._fresh(content))

    @extend_schema(request=s.BatchInput, responses=s.BatchOutput, operation_id="v1_content_batch")
    def batch(self, request):
        data = self.validated(s.BatchInput)
        results = services.content_batch_apply(
            organization=self.actor.organization,
            operations=data["operations"],
            parse_update=self._parse_update,
            actor=self.actor,
        )
        return self.respond({"results": results})

    def _parse_update(self, data) -> dict:
        parsed = self.validated(s.UpdateInput, data=data if data is not None else {})
        return {
            "variants": parsed.get("content"),
            "status": parsed.get("status"),
            "ai_disclosure": parsed.get("aiGenerated"),
        }


class ApprovalLinkViewSet(V1ViewSet):
    """An outside approver's link: revoke it (its page answers 410 from then on)."""

    queryset = ApprovalLink.objects.all()
    output_serializer = shared.ApprovalLinkOutput
    id_kind = "approval_link"
    policy = permissions.APPROVAL_LINKS

    @extend_schema(responses={204: None}, operation_id="v1_approval_links_destroy")
    def destroy(self, request, pk=None):
        services.approval_link_revoke(link=self.get_object())
        return self.respond(None, status=204)

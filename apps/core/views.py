"""One base viewset per API family.

``V1ViewSet`` (Family A, ``/v1``) and ``ApiViewSet`` (Family B, ``/api``) fix
authentication, roles and scopes, rate limits, idempotency, paging, sorting, envelopes
and the exception handler. Views built on them only translate HTTP to service calls.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Protocol, TypeVar, cast

from django.conf import settings
from django.db import transaction
from django.db.models import Model, QuerySet
from django.http import HttpRequest, HttpResponse
from django.http.response import HttpResponseBase
from django.utils.module_loading import import_string
from rest_framework import viewsets
from rest_framework.authentication import get_authorization_header
from rest_framework.metadata import SimpleMetadata
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.serializers import Serializer
from rest_framework.views import APIView

from . import idempotency, ids, proxies, ratelimit, scoping
from .errors import AuthenticationFailed, NotFound, PermissionDenied, RateLimited, ValidationFailed
from .exceptions import Replay, api_exception_handler, v1_exception_handler
from .filters import (
    FamilyFilterBackend,
    FamilyFilterSet,
    FieldSelection,
    ListFilterSet,
    SortByOrdering,
    SortOrdering,
)
from .pagination import ApiPagination, V1Pagination
from .policy import Policy
from .serializers import NUL_MESSAGE

if TYPE_CHECKING:
    from .models import OrgQuerySet

READ_METHODS = ("GET", "HEAD", "OPTIONS")

_M = TypeVar("_M", bound=Model)
_R = TypeVar("_R")
_T = TypeVar("_T")
_S = TypeVar("_S", bound=Serializer[Any])


class Caller(Protocol):
    """Who a request comes from, as the identity app's authentication classes put it on
    `request.user` (`apps.accounts.auth.Actor`: core imports no app)."""

    organization: Any  # the caller's `accounts.Organization`
    credential_id: str  # stable id for rate limits and idempotency
    user: Any
    expires_at: float | None

    def require(self, *, role: str | None = None, scope: str | None = None) -> None: ...

    def rate_limit(self, bucket: str) -> int | None: ...

    def plan_name(self) -> str: ...


if TYPE_CHECKING:

    class NotedRequest(Request):
        """A request with what the base notes on it for the way out (`finalize_response`)."""

        _rate_decision: ratelimit.Decision | None
        _idempotency: tuple[str, str] | None


def client_address(request: HttpRequest) -> str:
    """The client's address: the peer's, or behind a proxy listed in TRUSTED_PROXIES the one
    its `X-Forwarded-For` names (apps.core.proxies)."""
    peer = request.META.get("REMOTE_ADDR") or ""
    return proxies.client_ip(peer, request.META.get("HTTP_X_FORWARDED_FOR", "")) or "unknown"


class FamilyMetadata(SimpleMetadata):
    """OPTIONS: the view's name, description and media types, without DRF's `actions`: it
    would describe them with `get_serializer()`, here the output serializer (none on many
    views: a 500), not what an action takes. The OpenAPI schemas say that."""

    def determine_actions(self, request: Request, view: APIView) -> dict[str, Any]:
        return {}


class _FamilyViewSet(viewsets.GenericViewSet):
    """What both families share; each subclass fixes its envelope."""

    family = ""
    metadata_class = FamilyMetadata
    #: the least role and the API-key scope per action: every viewset names its app's policy
    #: (apps/<app>/permissions.py), the one object both families' views of a resource share
    policy: Policy
    #: extra rate-limit bucket per action (besides "default")
    action_buckets: dict[str, str] = {}
    #: id kind for `lookup()` (prefix in Family A)
    id_kind = ""
    #: camelCase sort name -> model field (the whitelist both families' sort parameters map
    #: onto); `default_sort` applies when none is given
    sort_fields: dict[str, str] = {"createdAt": "created_at"}
    default_sort: tuple[str, str] = ("created_at", "desc")
    #: an action listing other objects sorts by its own whitelist
    action_sort_fields: dict[str, dict[str, str]] = {}
    #: the list's filters (apps/<app>/filters.py), run by the family's filter backend
    filterset_class: type[ListFilterSet] | None = None
    #: the output serializer: OpenAPI, `fields=` (Family A) and the list's items (`present`)
    output_serializer: type[Serializer] | None = None

    #: who the request comes from (set in `initial`)
    actor: Caller

    # --- request lifecycle --------------------------------------------------------------
    def initial(self, request: Request, *args: Any, **kwargs: Any) -> None:
        request = cast("NotedRequest", request)
        address = "addr:" + client_address(request)
        if settings.AUTH_FAILURE_LIMIT > 0:
            failures = ratelimit.peek(address, "auth_failure")
            # past the limit a request with nothing to check is refused at once; credentials
            # presented are still checked, and valid ones go through: the failure budget slows
            # guessing from an address, it never locks out a valid key or token (which would
            # let anyone sharing the address, or a proxy's, deny it to everyone)
            if not failures.allowed and not get_authorization_header(request).strip():
                self._refuse_failed_address(request, failures)
        try:
            super().initial(request, *args, **kwargs)
            actor = cast("Caller | None", request.user)  # the identity app's (UNAUTHENTICATED_USER is None)
            if not actor:
                raise AuthenticationFailed("Missing credentials: send 'Authorization: Bearer <token>'.")
        except AuthenticationFailed:
            if settings.AUTH_FAILURE_LIMIT > 0:
                decision = ratelimit.hit(address, "auth_failure")
                request._rate_decision = decision  # a 401 carries the address's failure budget
                if not decision.allowed:
                    self._refuse_failed_address(request, decision)
            raise
        self.actor = actor
        # the caller's brands limit every organization-scoped read of this request (apps.core.scoping)
        self._brand_limit = scoping.limit_brands(getattr(actor, "brand_ids", None))
        self._rate_limit(request, actor)
        self._check_permissions(request, actor)
        self._check_query(request)
        self._begin_idempotency(request, actor)

    def _check_query(self, request: Request) -> None:
        """A NUL in a query parameter (`q`, `search`, ...) cannot reach PostgreSQL."""
        bad = sorted(
            {
                k.replace("\x00", "") or "query"
                for k, values in request.query_params.lists()
                if "\x00" in k or any("\x00" in v for v in values)
            }
        )
        if bad:
            raise ValidationFailed(
                "Query parameters cannot contain NUL characters.", {name: [NUL_MESSAGE] for name in bad}
            )

    def _refuse_failed_address(self, request: NotedRequest, decision: ratelimit.Decision) -> None:
        request._rate_decision = decision
        raise RateLimited(
            f"Too many failed authentications from this address: {decision.limit} per minute.",
            {"limit": decision.limit, "retryAfter": decision.retry_after},
            retry_after=decision.retry_after,
        )

    def _rate_limit(self, request: NotedRequest, actor: Caller) -> None:
        bucket = "default"
        decision = ratelimit.hit(actor.credential_id, bucket, limit=actor.rate_limit(bucket))
        request._rate_decision = decision
        if decision.allowed:
            bucket = self.action_buckets.get(self.action or "") or "default"
            if bucket != "default":
                extra = ratelimit.hit(actor.credential_id, bucket, limit=actor.rate_limit(bucket))
                if not extra.allowed or extra.remaining < decision.remaining:
                    request._rate_decision = extra
                decision = extra
        if not decision.allowed:
            kind = {"default": "requests", "generation": "generations", "batch": "batches"}.get(
                bucket, "requests"
            )
            plan = actor.plan_name() if actor.rate_limit(bucket) is not None else ""
            raise RateLimited(
                f"Rate limit exceeded: {decision.limit} {kind} per minute"
                + (f" on the {plan} plan." if plan else "."),
                {
                    "limit": decision.limit,
                    "retryAfter": decision.retry_after,
                    **({"plan": plan} if plan else {}),
                },
                retry_after=decision.retry_after,
            )

    def _check_permissions(self, request: Request, actor: Caller) -> None:
        reading = request.method in READ_METHODS
        policy = self.policy
        role = policy.role_for(self.action, reading=reading)
        if (
            getattr(actor, "role", "") == "reviewer"
        ):  # a client reviewer: what the policy lets it, nothing else
            if not ((reading and policy.reviewer_reads) or (self.action or "") in policy.reviewer_actions):
                raise PermissionDenied(
                    "A client reviewer may read its brands' content and approve or reject it, nothing else.",
                    {"requiredRole": role, "role": "reviewer"},
                )
            actor.require(scope=policy.scope_for(reading=reading))
            return
        actor.require(role=role, scope=policy.scope_for(reading=reading))

    def _begin_idempotency(self, request: NotedRequest, actor: Caller) -> None:
        key = request.headers.get("Idempotency-Key")
        if request.method != "POST" or not key:
            return
        if request.content_type.startswith("multipart/"):
            form = cast("Mapping[str, Any]", request.data)  # a multipart body parses to a QueryDict
            body = idempotency.multipart_digest(form, request.FILES)  # fields and file contents
        else:
            body = request._request.body
        fp = idempotency.fingerprint(request.method, request.path, body, request.META.get("QUERY_STRING", ""))
        try:
            wait = min(600.0, max(0.0, float(request.query_params.get("wait") or 0)))
        except ValueError:
            wait = 0.0
        replay = idempotency.begin(credential=actor.credential_id, key=key, fp=fp, wait=wait)
        if isinstance(replay, idempotency.KnownEffect):
            request._idempotency = (actor.credential_id, key)
            response = self.present_effect(replay)
            response["Idempotent-Replayed"] = "true"
            raise Replay(response)  # recorded as this key's answer on the way out
        if replay is not None:
            raise Replay(replay)
        request._idempotency = (actor.credential_id, key)

    # --- known effects of idempotent requests -----------------------------------------------
    def record_effect(self, create: Callable[[], _T], *, kind: str, status: int) -> _T:
        """Run ``create()`` (a service call returning the object, or the list of objects, it
        made) in one transaction with the note of its effect on the request's Idempotency-Key:
        a retry of a request that died afterwards answers with these objects (`present_effect`)
        instead of creating them again."""
        pending = getattr(self.request, "_idempotency", None)
        if not pending:
            return create()
        with transaction.atomic():
            result = create()
            many = isinstance(result, list | tuple)
            made: Iterable[Any] = result if isinstance(result, list | tuple) else [result]
            idempotency.note_effect(
                credential=pending[0],
                key=pending[1],
                kind=kind,
                ids=[o.pk for o in made],
                status=status,
                many=many,
            )
        return result

    def present_effect(self, effect: idempotency.KnownEffect) -> Response:
        """The answer to a retry whose first request created ``effect`` (views that call
        `record_effect` present their objects)."""
        raise NotImplementedError(f"{type(self).__name__} records effects it cannot present")

    def _release_idempotency(self, request: HttpRequest) -> None:
        """A request that fails without a response (an exception past the handler) leaves no
        key "in progress"."""
        pending = getattr(request, "_idempotency", None)
        if pending:  # (only the base's own requests hold a key)
            cast("NotedRequest", request)._idempotency = None
            idempotency.finish(credential=pending[0], key=pending[1], status=500, body=b"", content_type="")

    def dispatch(self, request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponseBase:
        try:
            return super().dispatch(request, *args, **kwargs)
        except BaseException:
            self._release_idempotency(getattr(self, "request", request))
            raise
        finally:
            token = getattr(self, "_brand_limit", None)
            if token is not None:
                scoping.unlimit(token)
                self._brand_limit = None

    def finalize_response(self, request: Request, response: Response, *args: Any, **kwargs: Any) -> Response:
        request = cast("NotedRequest", request)
        response = super().finalize_response(request, response, *args, **kwargs)
        decision = getattr(request, "_rate_decision", None)
        if decision is not None:
            response["X-RateLimit-Limit"] = str(decision.limit)
            response["X-RateLimit-Remaining"] = str(decision.remaining)
            response["X-RateLimit-Reset"] = str(decision.reset)
        pending = getattr(request, "_idempotency", None)
        if pending and not getattr(response, "_idempotent_replay", False):
            if hasattr(response, "render") and not response.is_rendered:
                try:
                    response.render()  # the stored body is the rendered bytes
                except Exception as exc:  # a 500 in rendering: the family's JSON, and the key released
                    response = super().finalize_response(request, self.handle_exception(exc), *args, **kwargs)
                    response.render()
            credential, key = pending
            request._idempotency = None
            idempotency.finish(
                credential=credential,
                key=key,
                status=response.status_code,
                body=response.content,
                content_type=response.get("Content-Type", "application/json"),
            )
        return response

    # --- helpers for views ----------------------------------------------------------------
    @property
    def data(self) -> dict[str, Any]:
        """The JSON body as a dict (a list or scalar body is a validation error)."""
        data = self.request.data
        if hasattr(data, "dict") and not isinstance(data, dict):
            data = data.dict()
        if not isinstance(data, dict):
            raise ValidationFailed(
                "The request body must be a JSON object.", {"body": ["Expected an object."]}
            )
        return data

    def form_fields(self, *allowed: str) -> None:
        """An upload's multipart parts: `file` plus `allowed`; any other part (a nested object
        a client flattened, a typo) is a 400 rather than silently dropped (issue 10)."""
        data = self.request.data
        if not isinstance(data, dict):  # a QueryDict for multipart
            raise ValidationFailed(
                "The request body must be multipart form data.", {"body": ["Expected form fields."]}
            )
        names = set(data.keys()) | set(self.request.FILES.keys())
        unknown = sorted(names - {"file", *allowed})
        if unknown:
            raise ValidationFailed(
                f"Unknown field(s): {', '.join(unknown)}.",
                {name: ["Unknown field."] for name in unknown[:20]},
            )

    def validated(
        self, serializer_class: type[Serializer[Any]], data: object = None, **context: object
    ) -> dict[str, Any]:
        validated: dict[str, Any] = self.valid_serializer(serializer_class, data, **context).validated_data
        return validated

    def valid_serializer(self, serializer_class: type[_S], data: object = None, **context: object) -> _S:
        """The bound input serializer, or a VALIDATION_ERROR with per-field details."""
        serializer = serializer_class(
            data=self.data if data is None else data, context={"view": self, **context}
        )
        if not serializer.is_valid():
            from .exceptions import _plain_dict

            raise ValidationFailed("Invalid request parameters.", _plain_dict(serializer.errors))
        return serializer

    def lookup(self, queryset: QuerySet[_M], value: object, kind: str | None = None) -> _M:
        """Fetch one object of the caller's organization; anything else is a 404."""
        pk = ids.parse(value, kind or self.id_kind)
        obj = queryset.filter(pk=pk).first() if pk else None
        if obj is None:
            raise NotFound("Resource not found.", {"id": str(value)[:100]})
        return obj

    def get_detail_queryset(self) -> QuerySet[Any]:
        """What a detail action reads (`get_object`): the list's queryset unless a view needs
        more on one object (its tags, its variants)."""
        return self.get_queryset()

    def get_object(self) -> Any:
        """The path's object, of the caller's organization only (`get_detail_queryset`), else a
        404 in the family's format; unlike DRF's, the list's filters do not apply to it."""
        obj = self.lookup(
            self.get_detail_queryset(), self.kwargs.get(self.lookup_url_kwarg or self.lookup_field)
        )
        self.check_object_permissions(self.request, obj)
        return obj

    def ref(
        self,
        queryset: QuerySet[_M],
        raw: object,
        kind: str,
        field: str,
        *,
        message: str = "",
        details: dict[str, Any] | None = None,
    ) -> _M | None:
        """An object named in the body: of the caller's organization, else a 400 on that field
        (not the 404 of a path id: the request itself is what is wrong)."""
        if raw in (None, ""):
            return None
        try:
            return self.lookup(queryset, raw, kind)
        except NotFound:
            raise ValidationFailed(
                message or f"Unknown {field}.", details or {field: ["Not found."]}
            ) from None

    def refs(self, queryset: QuerySet[_M], raws: Sequence[object], kind: str, field: str) -> list[_M]:
        """Several objects named in the body, in the order given, with one query; any unknown
        one is a 400 on that field."""
        pks = [ids.parse(raw, kind) for raw in raws]
        found = {obj.pk: obj for obj in queryset.filter(pk__in=[pk for pk in pks if pk])} if any(pks) else {}
        unknown = [str(raw)[:100] for raw, pk in zip(raws, pks, strict=True) if pk not in found]
        if unknown:
            raise ValidationFailed(f"Unknown {field}.", {field: [f"Not found: {', '.join(unknown)}."]})
        return [found[pk] for pk in pks]

    # --- lists: declared, not written -------------------------------------------------------
    def get_queryset(self) -> QuerySet[Any]:
        """The view's `queryset`, of the caller's organization only (the one place lists and
        lookups are scoped)."""
        return cast("OrgQuerySet", super().get_queryset()).for_organization(self.actor.organization)

    # None on a view without an output serializer (its actions declare their own schemas),
    # where DRF's own asserts one
    def get_serializer_class(self) -> type[Serializer[Any]] | None:  # type: ignore[override]
        return self.output_serializer

    def get_filterset_class(self) -> type[ListFilterSet] | None:
        return self.filterset_class

    def filtered(
        self, queryset: QuerySet[_M, _R], filterset_class: type[ListFilterSet] | None = None
    ) -> QuerySet[_M, _R]:
        """`queryset` narrowed by a FilterSet (the view's by default) over this request's query
        (a path's object that the list's parameters narrow too)."""
        found = filterset_class or self.get_filterset_class()
        return (
            found(self.request.query_params, queryset=queryset, request=self.request).qs
            if found
            else queryset
        )

    def get_sort_fields(self) -> dict[str, str]:
        """The sort whitelist of this action (a nested list sorts its own objects)."""
        return self.action_sort_fields.get(self.action or "") or self.sort_fields

    def get_paginated_response(self, data: list[Any]) -> Response:
        return super().get_paginated_response(self.present_page(data))

    def present_page(self, items: list[Any]) -> list[Any]:
        return items


if TYPE_CHECKING:
    _ListBase = _FamilyViewSet
else:
    _ListBase = object  # a mixin at runtime: the view's MRO keeps its family base's place


class ListMixin(_ListBase):
    # The declared list (a view mixes it in beside its family's base): its `queryset` of the
    # caller's organization, the family's filters and sort, one page, each item through
    # `output_serializer` (its `present`). No docstrings here: the OpenAPI description of a list
    # stays its view's or its family's.

    def list(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        page = self.paginate_queryset(self.filter_queryset(self.get_queryset()))
        return self.get_paginated_response(self.get_serializer(page, many=True).data)


class V1ViewSet(_FamilyViewSet):
    """Family A: API keys, bare resources, ``{error: {code, message, details}, requestId}``."""

    family = "v1"
    #: the identity app's classes, named in settings (core imports no app)
    authentication_classes = [import_string(path) for path in settings.V1_AUTHENTICATION_CLASSES]

    pagination_class = V1Pagination
    #: the FilterSet, then `fields=` checked (before any query), then `sortBy`/`sortOrder`
    filter_backends = [FamilyFilterBackend, FieldSelection, SortByOrdering]

    def get_exception_handler(self) -> Callable[[Exception, dict[str, Any]], HttpResponse]:
        return v1_exception_handler

    def respond(self, data: Any, status: int = 200, headers: dict[str, str] | None = None) -> Response:
        wanted = self.wanted_fields(data if isinstance(data, dict) else None)
        if wanted and isinstance(data, dict) and "id" in data:  # a resource (not e.g. a batch's results)
            data = {k: data[k] for k in wanted if k in data}
        return Response(data, status=status, headers=headers)

    def present_page(self, items: list[Any]) -> list[Any]:
        wanted = getattr(self, "_wanted", None)
        if wanted:
            return [{k: v for k, v in item.items() if k in wanted} for item in items]
        return items

    def wanted_fields(self, sample: dict[str, Any] | None = None) -> list[str] | None:
        """The `fields=` selection, checked against the resource's declared fields."""
        raw = self.request.query_params.get("fields")
        if not raw:
            return None
        if self.output_serializer is not None:
            available = list(self.output_serializer().fields)
        elif sample is not None:
            available = list(sample)
        else:
            return None
        wanted = [f.strip() for f in raw.split(",") if f.strip()]
        unknown = [f for f in wanted if f not in available]
        if unknown or not wanted:
            raise ValidationFailed(
                f"Unknown field(s): {', '.join(unknown) or raw}.",
                {"fields": [f"Available: {', '.join(available)}."]},
            )
        if (
            "id" in available and "id" not in wanted
        ):  # the id always comes back: a selection stays addressable
            wanted.insert(0, "id")
        return wanted


class ApiViewSet(_FamilyViewSet):
    """Family B: identity-provider tokens (and API keys), ``{data: ...}`` envelopes."""

    family = "api"
    authentication_classes = [import_string(path) for path in settings.API_AUTHENTICATION_CLASSES]
    # `filterset_class`: the app's list filter (apps/<app>/filters.py); without one,
    # `search_fields` and `date_field` make the family's default
    #: model fields searched by `q`/`search`
    search_fields: tuple[str, ...] = ()
    #: model date field filtered by `date_from`/`date_to`
    date_field = "created_at"

    pagination_class = ApiPagination
    #: the FilterSet, then `sort=<field>:<dir>`
    filter_backends = [FamilyFilterBackend, SortOrdering]

    def get_exception_handler(self) -> Callable[[Exception, dict[str, Any]], HttpResponse]:
        return api_exception_handler

    def respond(self, data: Any, status: int = 200, headers: dict[str, str] | None = None) -> Response:
        if status == 204:  # no body at all: a body on a 204 breaks keep-alive connections
            return Response(status=status, headers=headers)
        return Response({"data": data}, status=status, headers=headers)

    def get_filterset_class(self) -> type[ListFilterSet]:
        return self.filterset_class or FamilyFilterSet.of(
            search_fields=self.search_fields, date_field=self.date_field
        )


def on_commit(fn: Callable[[], object]) -> None:
    transaction.on_commit(fn)

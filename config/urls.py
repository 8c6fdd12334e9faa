from django.conf import settings
from django.contrib import admin
from django.urls import include, path, re_path
from django.views.static import serve as static_serve
from drf_spectacular.views import SpectacularAPIView, SpectacularRedocView, SpectacularSwaggerView

from apps.analytics.metrics import metrics_view
from apps.content.approval_views import approval_decide, approval_page
from apps.core.fallback import api_not_found, v1_not_found
from apps.core.health import healthz, livez, readyz, startupz
from apps.events.asyncapi import asyncapi_json, asyncapi_page
from apps.publishing.importing_views import import_template
from apps.publishing.link_views import short_link_redirect
from apps.publishing.views import sandbox_post
from apps.webhooks.inbound import (
    meta_data_deletion,
    meta_deauthorize,
    meta_deletion_status,
    provider_webhook,
    replicate_webhook,
)

# an error raised outside a view: the database being away is a 503 in the family's format
handler500 = "apps.core.fallback.server_error"

admin.site.site_header = "Postforge"
admin.site.site_title = "Postforge"
admin.site.index_title = "Staff console"
admin.site.site_url = "/v1/docs/"  # "View site": the API docs (the service has no public site)


def _hide_internal_tables() -> None:
    """Python Social Auth's tables (associations, nonces, partial pipelines, social logins) are
    the login library's bookkeeping, not something staff manage: off the admin index."""
    from social_django.models import Association, Code, Nonce, Partial, UserSocialAuth

    for model in (Association, Code, Nonce, Partial, UserSocialAuth):
        if admin.site.is_registered(model):
            admin.site.unregister(model)


_hide_internal_tables()

urlpatterns = [
    path("healthz", healthz),
    path("readyz", readyz),
    path("livez", livez),
    path("startupz", startupz),
    path("metrics", metrics_view),
    # tracked links' short links (README "Tracked links"); any code shape reaches the view (404)
    path("l/<str:code>", short_link_redirect),
    path("webhook/replicate", replicate_webhook, name="webhook-replicate"),
    path("webhook/meta/deauthorize", meta_deauthorize),
    path("webhook/meta/data-deletion", meta_data_deletion),
    path("webhook/meta/deletion/<str:code>", meta_deletion_status),
    # each Meta product's app signs its own callbacks (issue 22); the two above are Facebook's
    path("webhook/meta/<str:product>/deauthorize", meta_deauthorize),
    path("webhook/meta/<str:product>/data-deletion", meta_data_deletion),
    path("webhook/<str:provider>", provider_webhook),
    path("admin/", admin.site.urls),
    # API docs: one schema per family
    path(
        "v1/schema/",
        SpectacularAPIView.as_view(urlconf="config.urls_v1_schema", api_version="v1"),
        name="schema-v1",
    ),
    path("v1/docs/", SpectacularSwaggerView.as_view(url_name="schema-v1"), name="docs-v1"),
    path("v1/redoc/", SpectacularRedocView.as_view(url_name="schema-v1"), name="redoc-v1"),
    path("api/schema/", SpectacularAPIView.as_view(urlconf="config.urls_api_schema"), name="schema-api"),
    path("api/docs/", SpectacularSwaggerView.as_view(url_name="schema-api"), name="docs-api"),
    path("api/redoc/", SpectacularRedocView.as_view(url_name="schema-api"), name="redoc-api"),
    # the websocket's AsyncAPI 3.0 documents, one per family, next to the OpenAPI schemas
    path("v1/asyncapi/", asyncapi_json, {"family": "v1"}, name="asyncapi-v1"),
    path("v1/asyncapi/docs/", asyncapi_page, {"family": "v1"}, name="asyncapi-docs-v1"),
    path("api/asyncapi/", asyncapi_json, {"family": "api"}, name="asyncapi-api"),
    path("api/asyncapi/docs/", asyncapi_page, {"family": "api"}, name="asyncapi-docs-api"),
    path("content-import-template.csv", import_template, name="content-import-template"),
    path("v1/", include("config.urls_v1")),
    path("api/", include("config.urls_api")),
    path("oauth/", include("apps.publishing.urls")),
    path("approve/<str:token>/", approval_page, name="approval-page"),
    path("approve/<str:token>/<uuid:content_id>/", approval_decide, name="approval-decide"),
    path(
        "sandbox/<str:platform>/<str:username>/<str:external_id>",
        sandbox_post,
        name="sandbox-post",
    ),
    # [\s\S]: a path may contain an (encoded) newline, which `.` would not match -> HTML 404
    # (not the inline flag (?s): Django cannot reverse a pattern holding it, and then no
    # reverse() works, the admin's included)
    re_path(r"^v\d+/(?P<path>[\s\S]*)\Z", v1_not_found),
    re_path(r"^v\d+\Z", v1_not_found),
    re_path(r"^api/(?P<path>[\s\S]*)\Z", api_not_found),
]

if settings.BENCH_VIEWS:
    urlpatterns.insert(0, path("bench/", include("bench.baseline.urls")))

if not settings.STORAGES["default"]["BACKEND"].endswith("S3Storage"):
    # Local media (embedded default). In production, S3 or a web server serves media.
    def media_serve(request, path):
        return static_serve(
            request, path, document_root=settings.MEDIA_ROOT
        )  # read per request (tests move it)

    urlpatterns.append(re_path(r"^media/(?P<path>.*)$", media_serve))

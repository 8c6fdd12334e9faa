"""One role and scope policy per app, named by both API families' views and the staff admin."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import AnonymousUser

from apps.brands import permissions as brand_permissions
from apps.brands.api.views import BrandViewSet as BrandsB
from apps.brands.v1.views import BrandViewSet as BrandsA
from apps.content import permissions as content_permissions
from apps.content.api.views import BatchViewSet, TagViewSet
from apps.content.api.views import ContentViewSet as ContentB
from apps.content.v1.views import ContentViewSet as ContentA
from apps.core.policy import Policy
from apps.media.api.views import BrandMediaViewSet
from apps.media.v1.views import BrandAssetViewSet
from apps.profiles import permissions as profile_permissions
from apps.profiles.api.views import BrandProfileViewSet
from apps.profiles.api.views import ProfileViewSet as ProfilesB
from apps.profiles.v1.views import ProfileViewSet as ProfilesA
from apps.publishing import permissions as publishing_permissions
from apps.publishing.api.posting import PostsViewSet
from apps.publishing.api.views import OAuthViewSet
from apps.publishing.v1.posting import ContentPublishingViewSet
from apps.publishing.v1.views import ProfileConnectViewSet


@pytest.mark.parametrize(
    ("policy", "views"),
    [
        (content_permissions.CONTENT, [ContentA, ContentB, TagViewSet, BatchViewSet]),
        (
            brand_permissions.BRANDS,
            [BrandsA, BrandsB, BrandAssetViewSet, BrandMediaViewSet, BrandProfileViewSet],
        ),
        (profile_permissions.PROFILES, [ProfilesA, ProfilesB, ProfileConnectViewSet, OAuthViewSet]),
        (publishing_permissions.POSTING, [ContentPublishingViewSet, PostsViewSet]),
    ],
)
def test_both_families_name_the_same_policy_object(policy, views):
    assert all(view.policy is policy for view in views)


def test_policy_roles_and_scopes_per_action():
    content = content_permissions.CONTENT
    assert content.role_for("approve", reading=False) == "admin"
    assert content.role_for("reject", reading=False) == "admin"
    assert content.role_for("partial_update", reading=False) == "editor"
    assert content.role_for("list", reading=True) == "viewer"
    assert content.scope_for(reading=True) == "content:read"
    assert content.scope_for(reading=False) == "content:write"
    # a family's own name for the same action maps to the same role
    profiles = profile_permissions.PROFILES
    assert (
        profiles.role_for("connect", reading=False)
        == profiles.role_for("authorize", reading=False)
        == "admin"
    )
    assert profiles.scope_for(reading=True) == profiles.scope_for(reading=False) == "profiles"
    assert Policy().role_for(None, reading=False) == "editor"


def test_staff_console_asks_the_content_policy(django_user_model, db):
    from django.contrib.auth.models import Permission

    user = django_user_model.objects.create_user("staff-policy", is_staff=True)
    assert not content_permissions.staff_may_act(user)
    user.user_permissions.add(
        Permission.objects.get(codename="change_content", content_type__app_label="content")
    )
    user = django_user_model.objects.get(pk=user.pk)  # fresh permission cache
    assert content_permissions.staff_may_act(user)
    user.is_staff = False
    assert not content_permissions.staff_may_act(user)
    assert not content_permissions.staff_may_act(AnonymousUser())

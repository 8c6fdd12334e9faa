from __future__ import annotations

import factory
from django.utils import timezone

from apps.accounts.models import Organization
from apps.brands.models import Brand
from apps.profiles.models import SocialProfile


class OrganizationFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Organization

    name = factory.Sequence(lambda n: f"Org {n}")
    slug = factory.Sequence(lambda n: f"org-{n}")


class BrandFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Brand

    organization = factory.SubFactory(OrganizationFactory)
    name = factory.Sequence(lambda n: f"Brand {n}")
    slug = factory.Sequence(lambda n: f"brand-{n}")
    voice = "warm and witty"
    primary_color = "#112233"


class ProfileFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = SocialProfile

    organization = factory.SubFactory(OrganizationFactory)
    brand = factory.LazyAttribute(lambda o: BrandFactory(organization=o.organization))
    platform = "instagram"
    external_id = factory.Sequence(lambda n: f"acct-{n}")
    username = factory.Sequence(lambda n: f"user{n}")
    display_name = factory.Sequence(lambda n: f"User {n}")
    connected_at = factory.LazyFunction(timezone.now)
    follower_count = 1200
    settings = factory.LazyFunction(lambda: {"timezone": "Europe/Paris", "postingTimes": ["09:00", "18:30"]})

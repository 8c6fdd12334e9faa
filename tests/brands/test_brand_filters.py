"""Brands' Family B list filter is a django-filter FilterSet (brands/filters.py) the view names."""

from __future__ import annotations

import pytest
from django.http import QueryDict

from apps.brands.api.views import BrandViewSet
from apps.brands.filters import BrandFilter
from apps.brands.models import Brand
from apps.core.errors import ValidationFailed
from tests.factories import BrandFactory

pytestmark = pytest.mark.django_db


def _names(query: str, org) -> list[str]:
    qs = BrandFilter(QueryDict(query), queryset=Brand.objects.filter(organization=org)).qs
    return sorted(qs.values_list("name", flat=True))


def test_the_view_declares_the_apps_filterset():
    assert BrandViewSet.filterset_class is BrandFilter


def test_q_and_search_match_name_slug_or_description_and_q_wins(owner):
    BrandFactory(organization=owner.org, name="Harbour Cafe", description="espresso")
    BrandFactory(organization=owner.org, name="Hill Bakery", description="sourdough")
    assert _names("q=espresso", owner.org) == ["Harbour Cafe"]
    assert _names("search=bakery", owner.org) == ["Hill Bakery"]
    assert _names("q=sourdough&search=espresso", owner.org) == ["Hill Bakery"]


def test_a_bad_date_is_a_400_naming_the_parameter(owner):
    with pytest.raises(ValidationFailed) as err:
        _names("date_to=soon", owner.org)
    assert err.value.details == {"date_to": ["Invalid date."]}

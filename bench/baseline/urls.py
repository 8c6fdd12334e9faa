from django.urls import path

from .views import lean_brands, nodb

urlpatterns = [
    path("lean-brands", lean_brands),
    path("nodb", nodb),
]

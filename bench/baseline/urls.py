from django.urls import path

from .views import lean_brands, lean_content, nodb

urlpatterns = [
    path("lean-brands", lean_brands),
    path("lean-content", lean_content),
    path("nodb", nodb),
]

from django.urls import path

from .views import lean_brands, lean_content, lean_content_b, nodb

urlpatterns = [
    path("lean-brands", lean_brands),
    path("lean-content", lean_content),
    path("lean-content-b", lean_content_b),
    path("nodb", nodb),
]

"""The leanest view returning the same JSON as GET /v1/brands: the benchmark's baseline.

Mounted only when POSTFORGE_BENCH_VIEWS=1 (bench/api_list.py sets it)."""

from __future__ import annotations

import math

import orjson
from django.http import HttpResponse

from apps.accounts.models import ApiKey
from apps.brands.models import Brand


def lean_brands(request):
    secret = request.headers.get("Authorization", "").removeprefix("Bearer ")
    key = ApiKey.objects.filter(hashed=ApiKey.hash_secret(secret)).values("organization_id").first()
    if key is None:
        return HttpResponse(status=401)
    limit = int(request.GET.get("limit", 20))
    qs = Brand.objects.filter(organization_id=key["organization_id"])
    total = qs.count()
    rows = qs.order_by("-created_at", "-pk").values(
        "id", "name", "description", "voice", "tone", "primary_color", "secondary_color", "hashtags", "fonts",
        "is_default", "created_at", "updated_at",
    )[:limit]
    data = [
        {
            "id": f"brd_{r['id'].hex}",
            "name": r["name"],
            "description": r["description"],
            "guidelines": {"voice": r["voice"], "tone": r["tone"],
                           "colors": {"primary": r["primary_color"] or None, "secondary": r["secondary_color"] or None},
                           "hashtags": r["hashtags"]},
            "assets": {"logo": None, "fonts": r["fonts"]},
            "isDefault": r["is_default"],
            "createdAt": r["created_at"],
            "updatedAt": r["updated_at"],
        }
        for r in rows
    ]
    body = {"data": data, "pagination": {"page": 1, "limit": limit, "total": total, "pages": math.ceil(total / limit)}}
    return HttpResponse(orjson.dumps(body, option=orjson.OPT_UTC_Z), content_type="application/json")


def nodb(request):
    return HttpResponse(b'{"ok":true}', content_type="application/json")

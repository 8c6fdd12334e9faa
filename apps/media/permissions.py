"""Who may read and change the organization's media library: one policy for its routes.

(A brand's assets, Family A `/v1/brands/{id}/assets` and Family B `/api/brands/{id}/media`,
follow the brand's policy, `apps.brands.permissions.BRANDS`.)
"""

from __future__ import annotations

from apps.core.policy import Policy

#: Family B `/api/media`: editors write with `content:write`, reads need `content:read`
MEDIA = Policy(scope="content:write", read_scope="content:read")

"""LinkedIn organization pages at connect: the pages the member administers, and the one to keep.

LinkedIn lists a member's roles with the Organization Access Control API
(``GET /rest/organizationAcls?q=roleAssignee&role=ADMINISTRATOR&state=APPROVED``, Rest.li 2.0,
``rw_organization_admin``): one element per page, ``{"roleAssignee": "urn:li:person:..",
"role", "state", "organization": "urn:li:organization:<id>"}``, paged with ``start``/``count``.
Each page's name comes from ``GET /rest/organizations/<id>`` (``localizedName``).
(https://learn.microsoft.com/en-us/linkedin/marketing/community-management/organizations/organization-access-control-by-role)
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from social_core.exceptions import AuthResponseError

if TYPE_CHECKING:
    from apps.publishing.platforms.base import PlatformClient

ORGANIZATION_URN = "urn:li:organization:"
#: pages read per call, and at most this many calls (a member administering thousands of pages
#: is an agency: the first ones are listed)
ACL_PAGE_SIZE = 100
ACL_MAX_CALLS = 10


def administered_pages(client: PlatformClient) -> tuple[str, list[dict[str, str]]]:
    """``(the member's URN, [{"id", "name"}, ...])``: the organization pages the token's member
    administers (an approved ADMINISTRATOR role), in LinkedIn's order."""
    member = ""
    ids: list[str] = []
    for call in range(ACL_MAX_CALLS):
        body = client.get_json(
            "GET",
            "/rest/organizationAcls",
            params={
                "q": "roleAssignee",
                "role": "ADMINISTRATOR",
                "state": "APPROVED",
                "start": call * ACL_PAGE_SIZE,
                "count": ACL_PAGE_SIZE,
            },
        )
        rows = body.get("elements") or []
        for row in rows:
            urn = str(row.get("organization") or row.get("organizationalTarget") or "")
            if (
                urn.startswith(ORGANIZATION_URN)
                and row.get("role", "ADMINISTRATOR") == "ADMINISTRATOR"
                and row.get("state", "APPROVED") == "APPROVED"
                and urn[len(ORGANIZATION_URN) :] not in ids
            ):
                ids.append(urn[len(ORGANIZATION_URN) :])
            member = member or str(row.get("roleAssignee") or "")
        if len(rows) < ACL_PAGE_SIZE:
            break
    pages = []
    for org_id in ids:
        org = client.get_json("GET", f"/rest/organizations/{org_id}")
        pages.append({"id": org_id, "name": str(org.get("localizedName") or org.get("vanityName") or org_id)})
    return member, pages


def choose_page(backend, pages: list[dict[str, str]], wanted: str) -> dict[str, str]:
    """The page to connect: the one named, or the only one; several and none named: ask
    (``PageChoiceRequired``, naming them), never guess."""
    from .oauth_backends import PageChoiceRequired

    if not pages:
        raise AuthResponseError(
            backend,
            "This LinkedIn member administers no organization page (an approved ADMINISTRATOR role "
            "is needed): ask one of the page's admins to add you, or connect the member instead.",
            stage="token_exchange",
        )
    if not wanted and len(pages) > 1:
        raise PageChoiceRequired(
            backend,
            "This LinkedIn member administers several organization pages: connect again with pageId "
            "set to one of " + ", ".join(f"{p['name']} ({p['id']})" for p in pages) + ".",
            stage="token_exchange",
        )
    page = next((p for p in pages if p["id"] == wanted), None) if wanted else pages[0]
    if page is None:
        raise AuthResponseError(
            backend,
            f"The LinkedIn organization page {wanted} is not among the pages this member administers "
            f"(it administers {', '.join(p['id'] for p in pages)}).",
            stage="token_exchange",
        )
    return page


def connect_target(platform: str, page_id: str, account_type: str) -> tuple[str, str]:
    """``(page_id, account_type)`` of a connect, checked: a Page id (numeric) only for Facebook
    and LinkedIn (where it means an organization page), ``organization`` only for LinkedIn."""
    from apps.core.errors import InvalidSubject

    if account_type not in ("", "member", "organization") or (
        account_type == "organization" and platform != "linkedin"
    ):
        raise InvalidSubject(
            "accountType organization is for platform linkedin only (member: the default).",
            "account_type",
            "organization only for linkedin.",
        )
    if page_id and (
        platform not in ("facebook", "linkedin")
        or not (page_id.isascii() and page_id.isdigit())
        or len(page_id) > 40
        or account_type == "member"
    ):
        raise InvalidSubject(
            "pageId names a Facebook Page or a LinkedIn organization page (its numeric id), only for "
            "platform facebook or linkedin.",
            "page_id",
            "Only for facebook or a linkedin organization, a numeric id.",
        )
    if platform == "linkedin" and page_id:
        account_type = "organization"
    return page_id, "organization" if account_type == "organization" else ""

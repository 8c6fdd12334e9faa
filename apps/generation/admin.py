"""Generation's pages in the staff console: "Choose a design" on a content's page (issue 30).

Content's admin knows nothing of generation (it sits below it); this module adds the page
through content's console registry (``register_console_action``), so the content admin's
``content_for`` scoping (staff see their organizations' content only, others a 404) and act
permission hold. The page shows the first platform's picture drawn in each layout side by side
(``designs.design_previews``), a button under each; choosing one calls the content service
(``content_new_design``), the same the API's ``regenerate`` with ``scope: image`` calls."""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.template.response import TemplateResponse

from apps.content import services, states
from apps.content.admin import ContentAdmin, error_text, register_console_action, register_console_panel
from apps.content.models import Content
from apps.core.errors import ApplicationError

from .designs import DESIGNS, current_design, design_previews


@register_console_action("designs", name="designs")
def designs_view(console: ContentAdmin, request: HttpRequest, object_id: str) -> HttpResponse:
    """GET: the three designs side by side; POST ``design``: draw the pictures in it (an empty
    ``design``: the next layout, the content page's "New design" button)."""
    content = console._content(request, object_id)
    if request.method == "POST":
        design = request.POST.get("design", "").strip() or None
        done = console._run(
            request,
            content,
            lambda: services.content_new_design(content=content, design=design, actor=request.user),
            "New design: the pictures were drawn again, the text is unchanged.",
        )
        if done:
            content.refresh_from_db()
            now = current_design(content)
            if now:
                console.message_user(request, f"Design changed to {now}.", messages.INFO)
        return console._back(content)
    previews: list[Any] = []
    error = ""
    if not states.can("edit_image", content.status):
        error = f"The design can be chosen in review only (this content is {content.status})."
    else:
        try:
            previews = design_previews(content)
        except ApplicationError as exc:
            error = error_text(exc)
    return TemplateResponse(
        request,
        "admin/content/content/designs.html",
        {
            **console.admin_site.each_context(request),
            "opts": console.opts,
            "title": "Choose a design",
            "original": content,
            "previews": previews,
            "error": error,
        },
    )


@register_console_panel("designs")
def designs_panel(content: Content) -> dict[str, Any]:
    """The content page's "New design" and "Choose a design…" buttons, shown when the content's
    pictures can be drawn in another layout (in review, designed by the local engine)."""
    if content.status != states.REVIEW or content.media_type != "image":
        return {"design_now": None, "designs": DESIGNS}
    return {"design_now": current_design(content), "designs": DESIGNS}

"""Who may read analytics and monitoring: one policy for both API families and the staff admin."""

from __future__ import annotations

from apps.core.policy import Policy

#: analytics (Family A `/v1/analytics`, Family B `/api/analytics`) and monitoring: any member
#: with the `analytics` scope
ANALYTICS = Policy(scope="analytics")

#: the staff admin's analytics pages: the Django permission a staff user needs
STAFF_VIEW_PERMISSION = "publishing.view_publication"

"""Who may do what to social profiles: one policy for both API families."""

from __future__ import annotations

from apps.core.policy import Policy

#: profile routes of both families: editors change settings, admins disconnect (destroy)
#: and begin a connection (Family A `connect`, Family B `authorize`, served by publishing), or
#: connect Bluesky with an app password (`bluesky`, both families)
PROFILES = Policy(
    scope="profiles",
    action_roles={"destroy": "admin", "connect": "admin", "authorize": "admin", "bluesky": "admin"},
)

"""Who may read and change webhooks: one policy for both API families."""

from __future__ import annotations

from apps.core.policy import Policy

#: webhook endpoints and their deliveries, both families: any member reads, only admins
#: create, change, test, rotate or redeliver; the `webhooks` scope for reads and writes
WEBHOOKS = Policy(scope="webhooks", write_role="admin")

"""What accounts announces to the apps above it, so that it never imports them.

`organization_provisioned` is sent, inside the caller's transaction, when an organization is
created or fetched to be used (`organization=`); apps.brands answers with the default brand.
"""

from django.dispatch import Signal

organization_provisioned = Signal()

#: sent after the commit that revoked a credential (`credential_id=`, "key:<uuid>");
#: apps.events closes that credential's websockets
credential_revoked = Signal()

"""What brands announces to the apps above it, so that it never imports them.

`brand_retiring` is sent inside `brand_delete`'s transaction, before the row goes
(`brand=`, `successor=` the organization's default brand): profiles, content and media move
their rows to the successor through their own services.
"""

from django.dispatch import Signal

brand_retiring = Signal()

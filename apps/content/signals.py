"""What content announces to the apps above it, so that it never imports them.

`content_approved` is sent inside the approving transaction, with the content row still locked
(`content=`, `actor=`); apps.publishing.receivers schedules content of auto-publishing brands.
"""

from django.dispatch import Signal

content_approved = Signal()

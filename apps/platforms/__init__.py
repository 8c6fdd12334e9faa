"""What each platform accepts and how a draft is made to fit it: pure functions over
``platforms.yaml``, no models and no database.

- ``text``: how platforms count text (graphemes, URLs, weighted and byte lengths, limits).
- ``rules``: the platform rules read from ``platforms.yaml`` (formats, limits, sizes).
- ``adaptation``: a draft made to fit one platform's rules, and a variant checked against them.
- ``features``: which platform features a grant's OAuth scopes allow.
"""

"""What each platform accepts and how a draft is made to fit it: pure functions over
``platforms.yaml``, no models and no database.

- ``text``: how platforms count text (graphemes, URLs, weighted and byte lengths, limits).
- ``rules``: the platform rules read from ``platforms.yaml`` (formats, limits, sizes).
- ``features``: which platform features a grant's OAuth scopes allow.
- ``captions``: words, sentences, hashtags and shortening of a caption.
- ``adaptation``: a draft made to fit one platform's rules, one step per field.
- ``validation``: a variant checked against a platform's rules.
- ``style``: an engine's text shaped the way each platform reads, before adaptation.
"""

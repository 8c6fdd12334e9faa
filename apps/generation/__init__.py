"""Generation: the engine interface (``base``), the engines chosen by settings (``engines``:
the offline ``local`` engine and the OpenAI, Gemini and Replicate adapters), and the pipeline
that turns a content's request into its text, media and per-platform variants (``pipeline``,
``steps``, ``predictions`` for providers that answer by webhook).

Generation reads and writes content through ``apps.content`` (its models and services);
content never imports generation: what content asks of it goes through
``apps.content.ports``, which ``GenerationConfig.ready`` plugs in.
"""

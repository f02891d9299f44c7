"""Optional LLM features over one OpenAI-compatible endpoint: the client (``endpoint``) and the
calls built on it (``vision``: image captions at ingestion)."""

"""Optional LLM features over one OpenAI-compatible endpoint: the client for chat and embeddings
(``endpoint``), the reply cache every stage calls through (``client``), and image captions at
ingestion (``vision``)."""

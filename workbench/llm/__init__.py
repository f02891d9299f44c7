"""The optional LLM endpoint: one OpenAI-compatible client (chat and embeddings) behind a reply cache."""

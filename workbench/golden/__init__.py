"""Golden sets from the user's own documents: LLM-written questions whose quotes are verified
against the document (``synth``), and LLM grades of pooled (query, chunk) pairs (``llm_judge``)."""

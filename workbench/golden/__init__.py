"""Golden sets from the user's own documents: query sets, the query log, pools, judging and
agreement; LLM-written questions whose quotes are verified against the document (``synth``), and
LLM grades of pooled (query, chunk) pairs (``llm_judge``)."""

"""Retrieval: one query through the stages, to a final ranked list, its trace and a verdict.

``pipeline.run_pipeline`` runs a query on a loaded index snapshot (``store.index_set.Snapshot``)
and reads as one line per stage; every stage returns a named ``ranking.RankedList`` inside a
``trace.StageTrace``, and the stages' names are ``stages``' constants. In query order:

1. ``enhance`` -- the texts each route searches with: the query as typed, or a rewrite,
   several phrasings, sub-questions, a HyDE passage or salient keywords (``llm_cost`` counts
   the endpoint calls a configuration may make);
2. the routes -- ``dense`` (HNSW cosine) and ``bm25`` candidates, within ``filters``' scope
   (the chunks a metadata filter allows); a route with several texts fuses its lists by RRF;
3. ``language_guard`` -- whether the dense route's model can read the query, else it gets no vote;
4. ``fusion`` -- RRF or weighted fusion of the routes (hybrid mode);
5. ``filters`` -- drops what the filter excludes from the fused list;
6. ``mmr`` -- maximal marginal relevance over the top of the list;
7. ``rerank`` (cross-encoder) or ``llm_rerank`` (an endpoint scores 0-10), with a fallback to
   the previous order;
8. final -- the top ``retrieval.top_k``.

``trace.Trace`` holds every stage with its config, timing, notes and per-chunk details (built on
first read through ``lazy``); the app, CLI, evaluation and MCP server all read it. Its
confidence verdict (relevant / ambiguous / no answer) is measured on first read:
``assessment`` reads the signals from the snapshot, ``confidence`` holds the maths.
"""

"""Golden sets from the user's own documents: query sets, the query log, pools, judging, agreement."""

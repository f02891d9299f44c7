"""Golden sets, relevance judgements, metrics and evaluation runs."""

"""Pure analyses of query traces for the front ends: rank flow, A/B diffs, score explanations,
golden-set relevance and the rows the Retrieval lab shows. Nothing here imports Streamlit, so
every number the app displays can be computed and tested without it.
"""

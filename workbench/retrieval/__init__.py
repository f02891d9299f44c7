"""Retrieval maths stages: fusion, filtering, MMR diversification and cross-encoder reranking."""

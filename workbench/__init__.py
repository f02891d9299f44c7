"""RAG Workbench: see, tune and measure retrieval-augmented generation retrieval."""

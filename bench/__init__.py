"""The benchmark scripts: each runs alone (``python bench/bench_NAME.py``) and in a smoke slice (``--smoke``)."""

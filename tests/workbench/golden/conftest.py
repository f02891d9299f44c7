"""The golden-set tests' home (see ``tests/workbench/golden_fixtures.py``)."""

from tests.workbench.golden_fixtures import golden_embedder, golden_home, golden_home_template  # noqa: F401

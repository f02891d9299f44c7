"""The golden-set tests' home (see ``tests/workbench/golden_fixtures.py``), and a small judging
pool in a fresh catalog (``tests/workbench/golden/small_pool.py``)."""

from tests.workbench.golden.small_pool import catalog  # noqa: F401
from tests.workbench.golden_fixtures import golden_embedder, golden_home, golden_home_template  # noqa: F401

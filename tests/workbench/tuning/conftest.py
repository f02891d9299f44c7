"""The tuning homes (see ``tests/workbench/tuning_fixtures.py``), shared with the CLI tests."""

from tests.workbench.evaluation_fixtures import eval_embedder, scifact_slice  # noqa: F401
from tests.workbench.tuning_fixtures import lexicon_home, lexicon_template, tune_embedder  # noqa: F401

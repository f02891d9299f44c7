"""Evaluation homes (see ``tests/workbench/evaluation_fixtures.py``), shared with the CLI tests."""

from tests.workbench.evaluation_fixtures import eval_embedder, eval_home, scifact_slice  # noqa: F401
from tests.workbench.synth_fixtures import synth_home  # noqa: F401
from tests.workbench.tuning_fixtures import lexicon_home, lexicon_template, tune_embedder  # noqa: F401

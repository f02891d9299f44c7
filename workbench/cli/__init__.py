"""Command line: ``python -m workbench COMMAND``. Every command takes --home, --preset and --set.

Each module of this package adds one group of commands; this one assembles the parser and turns
the errors users can fix into one line on stderr and exit status 2.
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
from pathlib import Path

# Before any model library is imported: offline, quiet, no tokenizer threads fighting the encoder.
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

from workbench.cli import (
    backend,
    calibrate,
    check,
    documents,
    evaluation,
    golden,
    log,
    mcp,
    models,
    presets,
    query,
    sweep,
    tune,
)
from workbench.cli.common import EXIT_USAGE, add_common_options
from workbench.text import error_message

COMMAND_GROUPS = (
    documents,
    backend,
    query,
    evaluation,
    sweep,
    tune,
    check,
    golden,
    log,
    calibrate,
    models,
    mcp,
    presets,
)


def build_parser() -> argparse.ArgumentParser:
    # the installed command (`workbench`, from pip install) or the module (`python -m workbench`)
    prog = "workbench" if Path(sys.argv[0]).name == "workbench" else "python -m workbench"
    parser = argparse.ArgumentParser(prog=prog, description="RAG Workbench command line")
    parser.add_argument("-v", "--verbose", action="store_true", help="log details to stderr")
    commands = parser.add_subparsers(dest="command", required=True)
    for group in COMMAND_GROUPS:
        group.add_commands(commands, add_common_options)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    logging.basicConfig(
        level=logging.INFO if args.verbose else logging.WARNING,
        stream=sys.stderr,
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )
    from store.catalog import CatalogBusyError
    from store.repository import NotFoundError
    from store.retrieval_index import IndexBackendError
    from workbench.config import ConfigError
    from workbench.evaluation.golden import GoldenSetError
    from workbench.ingestion.workers import WorkerStartError
    from workbench.llm.client import LlmUnavailable
    from workbench.models.availability import ModelNotAvailableError
    from workbench.retrieval.pipeline import QueryError
    from workbench.tuning.study import StudyError

    try:
        return args.handler(args)
    except (
        NotFoundError,
        ConfigError,
        GoldenSetError,
        QueryError,
        CatalogBusyError,
        ModelNotAvailableError,
        IndexBackendError,
        WorkerStartError,
        LlmUnavailable,
        StudyError,
        ValueError,
    ) as error:
        message = error_message(error)
        print(f"error: {message}", file=sys.stderr)
        return EXIT_USAGE

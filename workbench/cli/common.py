"""What every command shares: exit codes, the --home/--preset/--set options, progress output."""

from __future__ import annotations

import argparse
import sys

from workbench.ingestion.parsers.image_notes import describe_images
from workbench.service.commands import checked_config, collection_of, config_for_new_or_existing, workbench_from
from workbench.text import count, shown_name

__all__ = ["checked_config", "collection_of", "config_for_new_or_existing", "workbench_from"]

EXIT_OK, EXIT_BELOW_THRESHOLD, EXIT_USAGE = 0, 1, 2
EXIT_CANCELLED = 130  # the shell's code for Ctrl-C


def add_common_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--home", help="state directory (default: $WORKBENCH_HOME or ./data)")
    parser.add_argument("--preset", help="named configuration to start from (default: the collection's)")
    parser.add_argument(
        "--set",
        dest="overrides",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="override one config key, e.g. --set retrieval.mode=bm25 (repeatable)",
    )


COLLECTION_HELP = "collection to use (default: the home's only collection)"
LEVEL_HELP = (
    "doc or span (default: the level the golden set was judged at: span when its questions are judged by passage)"
)


def print_progress(event) -> None:
    if event.stage == "estimate":
        print(f"  {shown_name(event.source)}: {event.message}", file=sys.stderr)
    elif event.stage == "cancelled":
        print(f"  cancelled: {event.message}", file=sys.stderr)
    elif event.stage in ("failed",):
        print(f"  failed  {shown_name(event.source)}: {event.message}", file=sys.stderr)
    elif event.stage in ("parse", "skip") and event.total <= 50:
        print(f"  [{event.done}/{event.total}] {event.stage:<6} {shown_name(event.source)}", file=sys.stderr)
    elif event.stage == "embed":
        print(f"  embedding {shown_name(event.source)}", file=sys.stderr)
    elif event.stage == "index":
        print(f"  indexing  {shown_name(event.source)}", file=sys.stderr)


#: files named one by one in a report's list (of chunks over the window, say)
FILES_LISTED = 10


def print_report(report) -> None:
    print(report.summary())
    if getattr(report, "cancelled", False):
        print(
            "cancelled: what was committed stays searchable; run the same command again to finish "
            "(unchanged files are skipped, cached texts are not embedded again)"
        )
    if report.parsed == 0 and report.embedded == 0:
        print("nothing to do: parsed 0 files and embedded 0 chunk texts (all unchanged)")
    for note in getattr(report, "notes", ()):  # e.g. an encoder runtime that fell back to torch fp32
        print(f"  note: {note}")
    window_note = report.window_note() if hasattr(report, "window_note") else ""
    if window_note:
        print(f"  over the window: {window_note}")
        over = [outcome for outcome in report.outcomes if outcome.over_window]
        for outcome in over[:FILES_LISTED]:
            print(
                f"    {shown_name(outcome.source)}: {len(outcome.over_window)} of {outcome.chunks} chunks, "
                f"by up to {max(outcome.over_window)} tokens"
            )
        if len(over) > FILES_LISTED:
            print(f"    and {count(len(over) - FILES_LISTED, 'more file')}")
    with_images = [outcome for outcome in report.outcomes if getattr(outcome, "images", ())]
    for outcome in with_images[:FILES_LISTED]:  # what OCR read of the pictures, and what it skipped
        for line in describe_images(outcome.images):
            print(f"  images in {shown_name(outcome.source)}: {line}")
    if len(with_images) > FILES_LISTED:
        print(f"  images in {count(len(with_images) - FILES_LISTED, 'more file')}")
    for failure in report.failures:
        print(f"  FAILED {shown_name(failure.source)}: {failure.reason}")

"""The ``models`` command: the model catalogue, what is on this machine, download and remove.

``python -m workbench models`` lists the catalogue (embedding and rerank models, their
languages, download size, size on disk and whether each is available offline);
``models download NAME`` fetches one into the Hugging Face cache (the only step that needs a
network; the size is shown first, then progress, then the files are verified);
``models remove NAME`` deletes a downloaded model again.
"""

from __future__ import annotations

import json
import sys

from workbench.cli.common import EXIT_OK, EXIT_USAGE


def add_commands(commands, common) -> None:
    p = commands.add_parser("models", help="list the model catalogue, download a model once while online, or remove it")
    p.add_argument("action", nargs="?", choices=("list", "download", "remove"), default="list")
    p.add_argument("name", nargs="?", help="download/remove: the model id (from the list, or any Hugging Face id)")
    p.add_argument("--json", action="store_true", help="list: print the catalogue as JSON")
    p.add_argument(
        "--keep-free-mb",
        type=float,
        default=None,
        help="download: refuse when less than this many MB would stay free on the cache's disk "
        "(default 500, or $WORKBENCH_MODELS_KEEP_FREE_MB)",
    )
    common(p)
    p.set_defaults(handler=cmd_models)


def cmd_models(args) -> int:
    if args.action == "download":
        return _download(args.name, args.keep_free_mb)
    if args.action == "remove":
        return _remove(args.name)
    from workbench.models.availability import hub_cache_dir
    from workbench.models.download import format_bytes
    from workbench.models.inventory import inventory

    rows = inventory()
    if args.json:
        print(json.dumps([row.facts() for row in rows], ensure_ascii=False))
        return EXIT_OK
    for kind, title in (
        ("embedding", "embedding models (embedding.model)"),
        ("rerank", "rerank models (rerank.model)"),
    ):
        print(title)
        for row in (r for r in rows if r.card.kind == kind):
            on_disk = format_bytes(row.size_on_disk) if row.size_on_disk else ""
            print(
                f"  {row.card.name:<40} {row.card.describe_languages():<16} {row.card.download_size:>9} "
                f"{on_disk:>9}  {row.status:<15} {row.card.summary}"
            )
    print(
        f"downloaded models live in {hub_cache_dir()}; fetch one once, while online, with: "
        "python -m workbench models download NAME (remove it with: python -m workbench models remove NAME)"
    )
    _print_runtimes(args.home)
    return EXIT_OK


def _print_runtimes(home) -> None:
    """Each encoder and cross-encoder runtime's speed on this machine (from the ``auto``
    calibrations) and, where measured, its SciFact nDCG@10 cost."""
    from workbench.embedding.calibration import CALIBRATION_FILE, read_calibrations
    from workbench.embedding.runtime_report import (
        calibration_summary,
        how_to_measure_quality,
        rows_from_record,
        runtime_quality,
    )
    from workbench.retrieval.rerank_calibration import RERANK_CALIBRATION_FILE, read_rerank_calibrations
    from workbench.service.home import resolve_home

    home = resolve_home(home)
    records = read_calibrations(home)
    if not records:
        print(
            "encoder runtimes (embedding.runtime): not measured on this machine yet; the first collection "
            "made with embedding.runtime=auto measures them"
        )
    else:
        print(
            f"encoder runtimes measured on this machine (embedding.runtime-precision; * = what auto picks; "
            f"{CALIBRATION_FILE} in the home)"
        )
        measured_quality = False
        for model, record in sorted(records.items()):
            print("  " + calibration_summary(model, record, "sample_texts", "texts"))
            quality = runtime_quality(home, model)
            measured_quality = measured_quality or bool(quality)
            for row in rows_from_record(model, record, "texts_per_s", quality):
                _print_row(row, "texts/s", with_quality=True)
        if not measured_quality:
            print("  " + how_to_measure_quality(home))
    reranks = read_rerank_calibrations()
    if not reranks:
        print(
            "cross-encoder runtimes (rerank.runtime): not measured on this machine yet; the first rerank with "
            "rerank.runtime=auto measures them"
        )
        return
    print(
        f"cross-encoder runtimes measured on this machine (rerank.runtime-precision; * = what auto picks; "
        f"{RERANK_CALIBRATION_FILE} in the machine's calibration folder)"
    )
    for model, record in sorted(reranks.items()):
        print("  " + calibration_summary(model, record, "sample_pairs", "pairs"))
        for row in rows_from_record(model, record, "pairs_per_s"):
            _print_row(row, "pairs/s", with_quality=False)


def _print_row(row, unit: str, with_quality: bool) -> None:
    from workbench.embedding.runtime_report import ndcg_text

    label = f"{row.runtime}{'*' if row.chosen else ''}"
    if row.unavailable:
        print(f"    {label:<15} unavailable: {row.unavailable}")
        return
    ratio = f"{row.ratio:.2f}x" if row.ratio else "-"
    query = f"  {row.query_ms:>7.1f} ms/query" if row.query_ms is not None else ""
    export = f"  export {row.export_s:.1f} s" if row.export_s is not None else ""
    quality = f"  SciFact nDCG@10 {ndcg_text(row.quality)}" if with_quality else ""
    refused = f"  auto refuses it: {row.refused}" if row.refused else ""
    print(f"    {label:<15} {row.speed:>7.1f} {unit} {ratio:>6}{query}  {row.agreement}{export}{quality}{refused}")


def _download(name: str | None, keep_free_mb: float | None) -> int:
    from workbench.models.download import DownloadPlan, DownloadProgress, ModelDownloadError, download, format_bytes

    if not name:
        print(
            "error: name the model to download, e.g. python -m workbench models download BAAI/bge-small-zh-v1.5",
            file=sys.stderr,
        )
        return EXIT_USAGE

    def on_plan(plan: DownloadPlan) -> None:
        print(
            f"{plan.repo_id}: {plan.files} files, {format_bytes(plan.total_bytes)}; "
            f"{format_bytes(plan.to_fetch)} to download",
            file=sys.stderr,
        )

    shown = [-1]

    def on_progress(progress: DownloadProgress) -> None:
        percent = int(progress.fraction * 100)
        if percent != shown[0]:
            shown[0] = percent
            print(
                f"\r  {percent:3d}%  {format_bytes(progress.done)} of {format_bytes(progress.total)}",
                end="",
                file=sys.stderr,
                flush=True,
            )

    try:
        folder = download(name, on_plan=on_plan, on_progress=on_progress, keep_free=keep_free_mb)
    except ModelDownloadError as error:
        print(f"\nerror: {error}", file=sys.stderr)
        return EXIT_USAGE
    print(file=sys.stderr)
    print(f"{name} is in {folder}, verified; it now loads offline")
    return EXIT_OK


def _remove(name: str | None) -> int:
    from workbench.models.download import ModelRemoveError, format_bytes, remove

    if not name:
        print(
            "error: name the model to remove, e.g. python -m workbench models remove BAAI/bge-small-zh-v1.5",
            file=sys.stderr,
        )
        return EXIT_USAGE
    try:
        freed = remove(name)
    except ModelRemoveError as error:
        print(f"error: {error}", file=sys.stderr)
        return EXIT_USAGE
    print(f"removed {name}; {format_bytes(freed)} freed")
    return EXIT_OK

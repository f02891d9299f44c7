"""The ``models`` command: the model catalogue, what is on this machine, and the one download step.

``python -m workbench models`` lists the catalogue (embedding and rerank models, their
languages and sizes, and whether each is available offline); ``python -m workbench models
download NAME`` fetches one into the Hugging Face cache, the only step that needs a network.
"""

from __future__ import annotations

import json
import sys

from workbench.cli.common import EXIT_OK, EXIT_USAGE


def add_commands(commands, common) -> None:
    p = commands.add_parser("models", help="list the model catalogue, or download a model once while online")
    p.add_argument("action", nargs="?", choices=("list", "download"), default="list")
    p.add_argument("name", nargs="?", help="download: the model id (from the list, or any Hugging Face id)")
    p.add_argument("--json", action="store_true", help="list: print the catalogue as JSON")
    common(p)
    p.set_defaults(handler=cmd_models)


def cmd_models(args) -> int:
    if args.action == "download":
        return _download(args.name)
    from workbench.models.availability import hub_cache_dir, locate
    from workbench.models.catalogue import EMBEDDING_MODELS, RERANK_MODELS

    cards = [*EMBEDDING_MODELS, *RERANK_MODELS]
    folders = {card.name: locate(card.name, card.kind) for card in cards}
    if args.json:
        print(json.dumps([{**card.facts(), "available": folders[card.name] is not None,
                           "folder": str(folders[card.name]) if folders[card.name] else None} for card in cards],
                         ensure_ascii=False))
        return EXIT_OK
    for title, group in (("embedding models (embedding.model)", EMBEDDING_MODELS),
                         ("rerank models (rerank.model)", RERANK_MODELS)):
        print(title)
        for card in group:
            status = "bundled" if card.bundled else ("available" if folders[card.name] else "not downloaded")
            size = card.download_size
            print(f"  {card.name:<40} {card.describe_languages():<16} {size:>9}  {status:<15} {card.summary}")
    print(f"downloaded models live in {hub_cache_dir()}; fetch one once, while online, with: "
          "python -m workbench models download NAME")
    _print_runtimes(args.home)
    return EXIT_OK


def _print_runtimes(home) -> None:
    """Each encoder runtime's speed on this machine, from the home's ``auto`` calibration."""
    from workbench.embedding.calibration import CALIBRATION_FILE, read_calibrations
    from workbench.service import resolve_home

    records = read_calibrations(resolve_home(home))
    if not records:
        print("encoder runtimes (embedding.runtime): not measured on this machine yet; the first collection "
              "made with embedding.runtime=auto measures them")
        return
    print(f"encoder runtimes measured on this machine (embedding.runtime-precision; * = what auto picks; "
          f"{CALIBRATION_FILE} in the home)")
    for model, record in sorted(records.items()):
        print(f"  {model}: {record.get('sample_texts')} texts, {record.get('measured')}, "
              f"load average {record.get('load_average')}")
        fp32 = record.get("runtimes", {}).get("torch-fp32", {}).get("texts_per_s") or 0
        for key, numbers in record.get("runtimes", {}).items():
            label = f"{key}{'*' if key == record.get('chosen') else ''}"
            if "error" in numbers:
                print(f"    {label:<15} unavailable: {numbers['error']}")
                continue
            ratio = f"{numbers['texts_per_s'] / fp32:.2f}x" if fp32 else "-"
            print(f"    {label:<15} {numbers['texts_per_s']:>7.1f} texts/s {ratio:>6}  "
                  f"{numbers['query_ms_p50']:>7.1f} ms/query  min cosine {numbers['min_cosine']:.5f}")


def _download(name: str | None) -> int:
    from workbench.models.availability import ModelDownloadError, download

    if not name:
        print("error: name the model to download, e.g. python -m workbench models download BAAI/bge-small-zh-v1.5",
              file=sys.stderr)
        return EXIT_USAGE
    print(f"downloading {name} (progress on stderr)...", file=sys.stderr)
    try:
        folder = download(name)
    except ModelDownloadError as error:
        print(f"error: {error}", file=sys.stderr)
        return EXIT_USAGE
    print(f"{name} is in {folder}; it now loads offline")
    return EXIT_OK

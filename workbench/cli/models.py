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
    return EXIT_OK


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

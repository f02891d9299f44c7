"""Command line: ``python -m workbench COMMAND``. Every command takes --home, --preset and --set."""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

EXIT_OK, EXIT_BELOW_THRESHOLD, EXIT_USAGE = 0, 1, 2


def _common(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--home", help="state directory (default: $WORKBENCH_HOME or ./data)")
    parser.add_argument("--preset", help="named configuration to start from (default: the collection's)")
    parser.add_argument("--set", dest="overrides", action="append", default=[], metavar="KEY=VALUE",
                        help="override one config key, e.g. --set retrieval.mode=bm25 (repeatable)")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m workbench", description="RAG Workbench command line")
    parser.add_argument("-v", "--verbose", action="store_true", help="log details to stderr")
    commands = parser.add_subparsers(dest="command", required=True)

    p = commands.add_parser("ingest", help="ingest files into a collection")
    p.add_argument("paths", nargs="+", type=Path)
    p.add_argument("--collection", "-c", required=True)
    _common(p)

    p = commands.add_parser("import-beir", help="import a BEIR folder (corpus, queries, qrels)")
    p.add_argument("folder", type=Path)
    p.add_argument("--collection", "-c", help="collection name (default: the folder's name)")
    p.add_argument("--golden", help="golden set name (default: the collection's name)")
    _common(p)

    p = commands.add_parser("query", help="run one query and show every stage")
    p.add_argument("text")
    p.add_argument("--collection", "-c", required=True)
    p.add_argument("--json", action="store_true", help="print the full trace as JSON")
    _common(p)

    p = commands.add_parser("collections", help="list collections")
    _common(p)
    p = commands.add_parser("presets", help="list presets")
    _common(p)
    p = commands.add_parser("documents", help="list a collection's documents")
    p.add_argument("--collection", "-c", required=True)
    _common(p)
    p = commands.add_parser("delete", help="delete a document from a collection")
    p.add_argument("document", help="document id, external id or file name")
    p.add_argument("--collection", "-c", required=True)
    _common(p)
    for plug_in in _command_plugins():
        plug_in.add_commands(commands, _common)
    p = commands.add_parser("save-preset", help="save the effective --set overrides as a named preset")
    p.add_argument("name")
    p.add_argument("--description", default="")
    _common(p)
    return parser


def _command_plugins():
    """Command groups that live beside the code they drive (evaluation, the MCP server)."""
    from workbench.evaluation import cli as evaluation_cli
    from workbench.mcp_server import cli as mcp_cli

    return [evaluation_cli, mcp_cli]


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    logging.basicConfig(
        level=logging.INFO if args.verbose else logging.WARNING, stream=sys.stderr,
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )
    from store.catalog import CatalogBusyError
    from store.repository import NotFoundError
    from workbench.config import ConfigError
    from workbench.evaluation.golden import GoldenSetError
    from workbench.pipeline import QueryError

    try:
        return args.handler(args) if hasattr(args, "handler") else COMMANDS[args.command](args)
    except (NotFoundError, ConfigError, GoldenSetError, QueryError, CatalogBusyError, ValueError) as error:
        message = error.args[0] if isinstance(error, LookupError) and error.args else str(error)
        print(f"error: {message}", file=sys.stderr)
        return EXIT_USAGE


def workbench_from(args):
    from workbench.service import Workbench

    return Workbench(args.home)


def _print_progress(event) -> None:
    if event.stage in ("failed",):
        print(f"  failed  {event.source}: {event.message}", file=sys.stderr)
    elif event.stage in ("parse", "skip") and event.total <= 50:
        print(f"  [{event.done}/{event.total}] {event.stage:<6} {event.source}", file=sys.stderr)
    elif event.stage == "embed":
        print(f"  embedding {event.source}", file=sys.stderr)
    elif event.stage == "index":
        print(f"  indexing  {event.source}", file=sys.stderr)


def cmd_ingest(args) -> int:
    bench = workbench_from(args)
    missing = [str(p) for p in args.paths if not p.exists()]
    if missing:
        raise ValueError(f"no such file: {', '.join(missing)}")
    files = [f for p in args.paths for f in (sorted(x for x in p.rglob("*") if x.is_file()) if p.is_dir() else [p])]
    config = _config_for_new_or_existing(bench, args.collection, args)
    report = bench.ingest_paths(args.collection, files, config, progress=_print_progress)
    _print_report(report)
    return EXIT_OK if not report.failures else EXIT_BELOW_THRESHOLD


def _config_for_new_or_existing(bench, collection, args):
    from workbench.service import NotFoundError

    try:
        return bench.config_for(collection, args.preset, args.overrides)
    except NotFoundError:
        if collection not in bench.collection_names():
            return bench.config_for(None, args.preset, args.overrides)
        raise


def _print_report(report) -> None:
    print(report.summary())
    if report.parsed == 0 and report.embedded == 0:
        print("nothing to do: parsed 0 files and embedded 0 chunk texts (all unchanged)")
    for failure in report.failures:
        print(f"  FAILED {failure.source}: {failure.reason}")


def cmd_import_beir(args) -> int:
    from workbench.beir import corpus_sources, golden_set
    from workbench.evaluation.golden import save

    folder = args.folder
    if not folder.is_dir():
        raise ValueError(f"{folder} is not a folder; pass a BEIR folder with corpus.jsonl")
    collection = args.collection or folder.resolve().name
    bench = workbench_from(args)
    config = _config_for_new_or_existing(bench, collection, args)
    sources, offsets = corpus_sources(folder)
    print(f"{collection}: {len(sources)} corpus documents from {folder}", file=sys.stderr)
    report = bench.ingest(collection, sources, config, progress=_print_progress)
    _print_report(report)
    golden = golden_set(folder, args.golden or collection, offsets)
    if golden is not None:
        path = save(golden, bench.home / "golden_sets" / f"{golden.name}.jsonl")
        spans = sum(1 for q in golden.queries for item in q.relevant if item.is_span)
        print(f"golden set {golden.name!r}: {len(golden)} queries, {spans} span judgements -> {path}")
    return EXIT_OK


def cmd_query(args) -> int:
    bench = workbench_from(args)
    config = bench.config_for(args.collection, args.preset, args.overrides)
    trace = bench.query(args.text, args.collection, config)
    if args.json:
        print(trace.to_json(indent=2))
        return EXIT_OK
    for stage in trace.stages:
        print(f"== {stage.stage} ({stage.elapsed_ms:.1f} ms, {len(stage.ranked)} hits)")
        for note in stage.notes:
            print(f"   note: {note}")
        for hit in stage.ranked.hits[: config.retrieval.top_k]:
            view = trace.chunks.get(hit.chunk_id)
            where = f"{view.source}" + (f" > {' > '.join(view.heading_path)}" if view and view.heading_path else "")
            snippet = " ".join(view.text.split())[:100] if view else ""
            print(f"  {hit.rank:>3}. {hit.score:9.4f}  [{where}]  {snippet}")
    print(f"total {trace.total_ms:.1f} ms")
    return EXIT_OK


def cmd_collections(args) -> int:
    bench = workbench_from(args)
    infos = bench.collections()
    if not infos:
        print("no collections yet; create one with: python -m workbench ingest FILES --collection NAME")
    for info in infos:
        print(f"{info.name:<24} {info.documents:>7} documents {info.chunks:>8} chunks  model={info.embedding_model}"
              f"  preset={info.default_preset}")
    return EXIT_OK


def cmd_presets(args) -> int:
    from workbench import presets

    bench = workbench_from(args)
    for name, overrides, description in presets.list_all(bench.catalog):
        shown = " ".join(f"{k}={v}" for k, v in sorted(overrides.items())) or "(built-in defaults)"
        print(f"{name:<20} {shown}" + (f"  # {description}" if description else ""))
    return EXIT_OK


def cmd_save_preset(args) -> int:
    from workbench import presets

    bench = workbench_from(args)
    base = presets.load_overrides(bench.catalog, args.preset) if args.preset else {}
    from workbench.config import WorkbenchConfig

    overrides = {**base, **WorkbenchConfig().with_overrides(args.overrides).flat()}
    chosen = presets.overrides_between(WorkbenchConfig(), WorkbenchConfig.from_dict(overrides))
    saved = presets.save(bench.catalog, args.name, chosen, args.description)
    print(f"saved preset {args.name!r}: " + (" ".join(f"{k}={v}" for k, v in saved.items()) or "(defaults)"))
    return EXIT_OK


def cmd_documents(args) -> int:
    bench = workbench_from(args)
    for doc in bench.documents(args.collection):
        status = doc.status if doc.status == "success" else f"{doc.status}: {doc.error}"
        print(f"{doc.id:>6}  {doc.source:<40} {doc.doc_type:<5} {doc.size_bytes:>9} B {doc.chunk_count:>5} chunks  {status}")
    return EXIT_OK


def cmd_delete(args) -> int:
    bench = workbench_from(args)
    document = bench.delete_document(args.collection, args.document)
    print(f"deleted {document.source} (id {document.id}) from {args.collection}")
    return EXIT_OK


COMMANDS = {
    "ingest": cmd_ingest,
    "import-beir": cmd_import_beir,
    "query": cmd_query,
    "collections": cmd_collections,
    "presets": cmd_presets,
    "save-preset": cmd_save_preset,
    "documents": cmd_documents,
    "delete": cmd_delete,
}

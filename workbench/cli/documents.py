"""Commands that fill and inspect collections: ``ingest``, ``import-beir``, ``collections``,
``documents`` and ``delete``."""

from __future__ import annotations

import sys
from pathlib import Path

from workbench.cli.common import (
    EXIT_BELOW_THRESHOLD,
    EXIT_CANCELLED,
    EXIT_OK,
    config_for_new_or_existing,
    print_progress,
    print_report,
    workbench_from,
)
from workbench.ingestion.parsers.image_notes import images_in_brief, notes_of
from workbench.text import shown_name


def add_commands(commands, common) -> None:
    p = commands.add_parser("ingest", help="ingest files into a collection")
    p.add_argument("paths", nargs="+", type=Path)
    p.add_argument("--collection", "-c", required=True)
    common(p)
    p.set_defaults(handler=cmd_ingest)

    p = commands.add_parser("import-beir", help="import a BEIR folder (corpus, queries, qrels)")
    p.add_argument("folder", type=Path)
    p.add_argument("--collection", "-c", help="collection name (default: the folder's name)")
    p.add_argument("--golden", help="golden set name (default: the collection's name)")
    common(p)
    p.set_defaults(handler=cmd_import_beir)

    p = commands.add_parser("collections", help="list collections")
    common(p)
    p.set_defaults(handler=cmd_collections)

    p = commands.add_parser("documents", help="list a collection's documents")
    p.add_argument("--collection", "-c", required=True)
    common(p)
    p.set_defaults(handler=cmd_documents)

    p = commands.add_parser("delete", help="delete a document from a collection")
    p.add_argument("document", help="document id, external id or file name")
    p.add_argument("--collection", "-c", required=True)
    common(p)
    p.set_defaults(handler=cmd_delete)


def cmd_ingest(args) -> int:
    bench = workbench_from(args)
    missing = [str(p) for p in args.paths if not p.exists()]
    if missing:
        raise ValueError(f"no such file: {', '.join(missing)}")
    files = [f for p in args.paths for f in (sorted(x for x in p.rglob("*") if x.is_file()) if p.is_dir() else [p])]
    config = config_for_new_or_existing(bench, args.collection, args)
    report = bench.ingest_paths(args.collection, files, config, progress=print_progress)
    print_report(report)
    if report.cancelled:
        return EXIT_CANCELLED
    return EXIT_OK if not report.failures else EXIT_BELOW_THRESHOLD


def cmd_import_beir(args) -> int:
    from workbench.evaluation.golden import save
    from workbench.ingestion.beir import corpus_sources, golden_set

    folder = args.folder
    if not folder.is_dir():
        raise ValueError(f"{folder} is not a folder; pass a BEIR folder with corpus.jsonl")
    collection = args.collection or folder.resolve().name
    bench = workbench_from(args)
    config = config_for_new_or_existing(bench, collection, args)
    sources, offsets = corpus_sources(folder)
    print(f"{collection}: {len(sources)} corpus documents from {folder}", file=sys.stderr)
    report = bench.ingest(collection, sources, config, progress=print_progress)
    print_report(report)
    if report.cancelled:
        return EXIT_CANCELLED
    golden = golden_set(folder, args.golden or collection, offsets)
    if golden is not None:
        path = save(golden, bench.home / "golden_sets" / f"{golden.name}.jsonl")
        spans = sum(1 for q in golden.queries for item in q.relevant if item.is_span)
        print(f"golden set {golden.name!r}: {len(golden)} queries, {spans} span judgements -> {path}")
    return EXIT_OK


def cmd_collections(args) -> int:
    bench = workbench_from(args)
    infos = bench.collections()
    if not infos:
        print("no collections yet; create one with: python -m workbench ingest FILES --collection NAME")
    for info in infos:
        print(
            f"{shown_name(info.name):<24} {info.documents:>7} documents {info.chunks:>8} chunks  "
            f"model={info.embedding_model}"
            f"  preset={info.default_preset}  backend={info.backend}"
        )
        if info.interrupted:
            print(f"{'':<24} INCOMPLETE: {info.interrupted}")
    return EXIT_OK


def cmd_documents(args) -> int:
    bench = workbench_from(args)
    for doc in bench.documents(args.collection):
        status = doc.status if doc.status == "success" else f"{doc.status}: {doc.error}"
        images = images_in_brief(notes_of(doc.parse_report))
        print(
            f"{doc.id:>6}  {shown_name(doc.source):<40} {doc.doc_type:<5} {doc.size_bytes:>9} B "
            f"{doc.chunk_count:>5} chunks  {status}{f'  (images: {images})' if images else ''}"
        )
    return EXIT_OK


def cmd_delete(args) -> int:
    bench = workbench_from(args)
    document = bench.delete_document(args.collection, args.document)
    print(f"deleted {shown_name(document.source)} (id {document.id}) from {args.collection}")
    return EXIT_OK

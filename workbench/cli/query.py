"""The ``query`` command: run one query and show every stage's ranked list."""

from __future__ import annotations

from workbench.cli.common import COLLECTION_HELP, EXIT_OK, checked_config, collection_of, workbench_from


def add_commands(commands, common) -> None:
    p = commands.add_parser("query", help="run one query and show every stage")
    p.add_argument("text")
    p.add_argument("--collection", "-c", help=COLLECTION_HELP)
    p.add_argument("--json", action="store_true", help="print the full trace as JSON")
    common(p)
    p.set_defaults(handler=cmd_query)


def cmd_query(args) -> int:
    bench = workbench_from(args)
    args.collection = collection_of(bench, args.collection)
    config = checked_config(bench, args.collection, args)
    trace = bench.query(args.text, args.collection, config, source="cli")
    if args.json:
        print(trace.to_json(indent=2))
        return EXIT_OK
    if trace.enhancement is not None:
        _print_query_stage(trace.enhancement)
    for stage in trace.stages:
        print(f"== {stage.stage} ({stage.elapsed_ms:.1f} ms, {len(stage.ranked)} hits)")
        for note in stage.notes:
            print(f"   note: {note}")
        for call in stage.llm_calls:
            print(f"   llm: {call.describe()}: {_one_line(call.text) if call.ok else ''}".rstrip(": "))
        for hit in stage.ranked.hits[: config.retrieval.top_k]:
            view = trace.chunks.get(hit.chunk_id)
            where = f"{view.source}" + (f" > {' > '.join(view.heading_path)}" if view and view.heading_path else "")
            snippet = " ".join(view.text.split())[:100] if view else ""
            print(f"  {hit.rank:>3}. {hit.score:9.4f}  [{where}]  {snippet}")
    confidence = trace.confidence
    if confidence is not None:
        print(f"confidence: {confidence.verdict} ({confidence.reason})")
        for evidence in confidence.evidence:
            counted = "" if evidence.used else " (not counted)"
            print(f"  {evidence.signal:<7}{counted} {evidence.detail}")
    print(f"total {trace.total_ms:.1f} ms")
    return EXIT_OK


def _print_query_stage(enhanced) -> None:
    print(f"== query ({enhanced.method}, {enhanced.elapsed_ms:.1f} ms)")
    for note in enhanced.notes:
        print(f"   note: {note}")
    for call in enhanced.calls:
        print(f"   llm: {call.describe()}")
    for variant in enhanced.variants:
        print(f"   {variant.origin:<15} -> {'+'.join(variant.routes):<10} {_one_line(variant.text)}")


def _one_line(text: str, width: int = 160) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= width else flat[: width - 1] + "…"

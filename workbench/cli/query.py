"""The ``query`` command: run one query and show every stage's ranked list."""

from __future__ import annotations

from workbench.cli.common import EXIT_OK, checked_config, workbench_from


def add_commands(commands, common) -> None:
    p = commands.add_parser("query", help="run one query and show every stage")
    p.add_argument("text")
    p.add_argument("--collection", "-c", required=True)
    p.add_argument("--json", action="store_true", help="print the full trace as JSON")
    common(p)
    p.set_defaults(handler=cmd_query)


def cmd_query(args) -> int:
    bench = workbench_from(args)
    config = checked_config(bench, args.collection, args)
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
    confidence = trace.confidence
    if confidence is not None:
        print(f"confidence: {confidence.verdict} ({confidence.reason})")
        for evidence in confidence.evidence:
            counted = "" if evidence.used else " (not counted)"
            print(f"  {evidence.signal:<7}{counted} {evidence.detail}")
    print(f"total {trace.total_ms:.1f} ms")
    return EXIT_OK

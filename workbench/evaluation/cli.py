"""Evaluation commands: ``eval`` (and, later, sweeps, runs and comparisons)."""

from __future__ import annotations

import json

from workbench.cli import EXIT_OK, workbench_from


def add_commands(commands, common) -> None:
    p = commands.add_parser("eval", help="evaluate a golden set")
    p.add_argument("--collection", "-c", required=True)
    p.add_argument("--golden", "-g", help="golden set name or .jsonl path (default: the collection's name)")
    p.add_argument("--metrics", help="comma-separated, e.g. ndcg@10,recall@100,mrr@10")
    p.add_argument("--json", action="store_true")
    common(p)
    p.set_defaults(handler=cmd_eval)


def cmd_eval(args) -> int:
    from workbench.evaluation import golden as golden_sets
    from workbench.evaluation.metrics import DEFAULT_METRICS, compute
    from workbench.evaluation.runner import evaluate_documents

    bench = workbench_from(args)
    config = bench.config_for(args.collection, args.preset, args.overrides)
    golden = golden_sets.find(args.golden or args.collection, bench.home)
    metric_names = tuple(m.strip() for m in args.metrics.split(",")) if args.metrics else DEFAULT_METRICS
    for name in metric_names:
        compute(name, [], {"x": 1})  # validates names before the long run
    if config.retrieval.mode != "bm25":
        bench.embed_queries(config.embedding.model, [q.query for q in golden.queries])
    bench.snapshot(args.collection, config)
    result = evaluate_documents(
        lambda text, cfg: bench.query(text, args.collection, cfg), golden, config, args.collection, metric_names
    )
    if args.json:
        print(json.dumps(result.to_dict(), ensure_ascii=False))
    else:
        print(f"{args.collection} / {golden.name}: {len(golden)} queries, mode={config.retrieval.mode}, "
              f"level=doc, {result.elapsed_s:.1f} s")
        for name, value in result.metrics.items():
            print(f"  {name:<12} {value:.4f}")
    return EXIT_OK



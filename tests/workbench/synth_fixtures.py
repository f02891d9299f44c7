"""A home for the golden-synth tests: English notes and a Chinese handbook whose sentences break
across lines (as PDF text does), indexed with the hashing embedder (no model load), built once."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.workbench.evaluation_fixtures import eval_config

ENGLISH = {
    "walrus.md": """# Walrus cluster guide

## Sizing

Set the walrus option to true when the cluster has more than eight nodes. Smaller clusters keep
the default, because the option doubles the memory each node reserves at start.

## Restarting

A rolling restart moves one node at a time, so the service stays available throughout. Each node
drains its open connections before it stops, which takes about forty seconds.
""",
    "kestrel.md": """# Kestrel scheduler notes

The kestrel scheduler assigns incoming jobs to queues by their priority and their owner. Queues
drain in order of creation, and a queue that stays empty for an hour is removed.

Failed jobs are retried three times with a growing pause between attempts. After the third
failure the job moves to the dead-letter queue, where an operator can inspect its logs.
""",
    "otter.md": """# Otter project report

Quarterly numbers for the otter project went up by twelve percent over the spring. The team hired
two engineers who now maintain the data pipeline and its nightly exports.

Funding for the next year depends on the river survey, which measures water quality at forty
stations along the valley every month.
""",
}
CHINESE = {
    "handbook.md": """# 检索增强生成手册

## 基本概念

检索增强生成先从知识库中找出相关段落，再让大模型据
此作答。它把模型的参数记忆和外部文档结合在一起，当知识经常更新时，改文档比重新训练模型便宜得多。

## 分块

分块决定了检索的粒度，块太大会稀释相关内容，块太小会丢
失上下文。相邻块之间保留少量重叠，可以避免一句话被切断在两个块之间。

## 评估

评估需要一份标注好的问题集，每个问题都注明哪些段落能回答它。没有标注集，就无法比较两种配置的好坏。
""",
}


@dataclass
class SynthHome:
    home: Path
    english: str = "notes"
    chinese: str = "zh"


def synth_config():
    return eval_config({"chunking.strategy": "recursive", "chunking.size": 200, "chunking.overlap": 0})


@pytest.fixture(scope="session")
def synth_home(tmp_path_factory, eval_embedder) -> SynthHome:
    from workbench.ingestion.ingest import Source
    from workbench.service import Workbench

    bench = Workbench(tmp_path_factory.mktemp("synth-home") / "home")
    for collection, documents in (("notes", ENGLISH), ("zh", CHINESE)):
        report = bench.ingest(collection, [Source.from_markdown(n, t) for n, t in documents.items()], synth_config())
        assert not report.failures, report.summary()
    return SynthHome(bench.home)

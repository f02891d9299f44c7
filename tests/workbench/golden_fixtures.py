"""A small English and Chinese home for the golden-set tests, built once per session with the
deterministic hashing embedder (no model load). Tests that change it take ``golden_home``, a copy."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.conftest import registered_hashing_embedder

GOLDEN_MODEL = "golden-hashing-embedder"
DOCUMENTS = {
    "kettle.md": "# Kettle descaling\n\nLimescale builds up inside a kettle in hard-water areas.\n\n## Vinegar\n\n"
    "Boil equal parts white vinegar and water, then rinse twice.\n\n## Citric acid\n\n"
    "Dissolve citric acid powder in water and boil the solution.\n",
    "bicycle.md": "# Bicycle chain care\n\nScrub the chain with degreaser. Apply one drop of chain oil per link "
    "and wipe off the excess.\n",
    "sourdough.md": "# Sourdough starter\n\nFeed the starter daily with rye flour and water until it doubles.\n",
    "茶.md": "# 泡茶\n\n绿茶用八十度的水冲泡，浸泡两分钟。\n\n## 红茶\n\n红茶用沸水冲泡，浸泡四分钟后倒出。\n",
    "自行车.md": "# 自行车保养\n\n每个链节滴一滴链条油，然后擦去多余的油。\n",
}
QUESTIONS = [
    "how to descale a kettle with vinegar",
    "chain oil per link",
    "feed a sourdough starter",
    "绿茶用多少度的水",
    "链条油怎么用",
]


def golden_config_overrides() -> list[str]:
    return [
        f"embedding.model={GOLDEN_MODEL}",
        "chunking.strategy=fixed",
        "chunking.size=60",
        "chunking.overlap=0",
        "dense.exact=true",
    ]


@pytest.fixture(scope="session")
def golden_embedder():
    with registered_hashing_embedder(GOLDEN_MODEL) as instance:
        yield instance


@pytest.fixture(scope="session")
def golden_home_template(tmp_path_factory, golden_embedder) -> Path:
    from workbench.config import WorkbenchConfig
    from workbench.ingestion.ingest import Source
    from workbench.service import Workbench

    home = tmp_path_factory.mktemp("golden-home")
    bench = Workbench(home)
    config = WorkbenchConfig().with_overrides(golden_config_overrides())
    report = bench.ingest("notes", [Source.from_markdown(name, text) for name, text in DOCUMENTS.items()], config)
    assert not report.failures, report.summary()
    return home


@pytest.fixture
def golden_home(golden_home_template: Path, tmp_path: Path) -> Path:
    copy = tmp_path / "home"
    shutil.copytree(golden_home_template, copy)
    return copy

"""Smoke runs of the benches that build indexes from the demo's abstracts: local and Milvus Lite."""

from __future__ import annotations

import pytest

from tests.bench.smoke import check_smoke, in_group

pytestmark = [pytest.mark.slow, pytest.mark.bench_smoke]


@pytest.mark.parametrize("name", in_group("indexes"))
def test_the_bench_runs_its_smoke_slice_and_prints_its_table(name, tmp_path):
    check_smoke(name, tmp_path)

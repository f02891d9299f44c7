"""Smoke run of bench_mcp: MCP over stdio and HTTP, on a copy of the suite's demo home."""

from __future__ import annotations

import pytest

from tests.bench.smoke import check_smoke, in_group

pytestmark = [pytest.mark.slow, pytest.mark.bench_smoke]


@pytest.mark.parametrize("name", in_group("mcp"))
def test_the_bench_runs_its_smoke_slice_and_prints_its_table(name, demo_home, tmp_path):
    check_smoke(name, tmp_path, demo_home)

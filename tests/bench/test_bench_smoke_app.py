"""Smoke runs of the app benches: AppTest reruns, and Chromium against the app (skipped without Chromium)."""

from __future__ import annotations

import pytest

from tests.bench.smoke import SMOKE, check_smoke, in_group
from tests.browser.app_server import CHROMIUM

pytestmark = [pytest.mark.slow, pytest.mark.bench_smoke]


@pytest.mark.parametrize("name", in_group("app"))
def test_the_bench_runs_its_smoke_slice_and_prints_its_table(name, demo_home, tmp_path):
    if SMOKE[name].chromium and not CHROMIUM.exists():
        pytest.skip(f"{name} drives {CHROMIUM} (apt-get install -y chromium)")
    check_smoke(name, tmp_path, demo_home)

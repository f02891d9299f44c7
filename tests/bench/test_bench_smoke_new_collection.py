"""Smoke run of bench_new_collection: a first collection from a new user's files, in a home of its own."""

from __future__ import annotations

import pytest

from tests.bench.smoke import check_smoke, in_group

pytestmark = [pytest.mark.slow, pytest.mark.bench_smoke]


@pytest.mark.parametrize("name", in_group("new_collection"))
def test_the_bench_runs_its_smoke_slice_and_prints_its_table(name, tmp_path, tiny_chinese_model_dir):
    # the suite's tiny model in the default's place: measuring every runtime exports it, and the
    # default's exports (OpenVINO's static int8 calibrating on its texts) took minutes under load
    check_smoke(name, tmp_path, extra=("--model", str(tiny_chinese_model_dir)))

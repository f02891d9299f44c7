"""How many lanes an exported encoder runs: one per usable core, or the setting, or an error naming both."""

from __future__ import annotations

import os

import pytest

from workbench.embedding.machine import LANES_ENV, encoder_lanes


def test_lanes_default_to_one_per_usable_core(monkeypatch):
    monkeypatch.delenv(LANES_ENV, raising=False)
    assert encoder_lanes() == len(os.sched_getaffinity(0))


def test_the_setting_chooses_the_lanes(monkeypatch):
    monkeypatch.setenv(LANES_ENV, "3")
    assert encoder_lanes() == 3


@pytest.mark.parametrize("asked", ["0", "two", "-1", "1.5"])
def test_a_bad_setting_names_itself_and_the_default(monkeypatch, asked):
    monkeypatch.setenv(LANES_ENV, asked)
    with pytest.raises(ValueError) as raised:
        encoder_lanes()
    message = str(raised.value)
    assert f"{LANES_ENV}={asked!r}" in message and "one lane per usable core" in message

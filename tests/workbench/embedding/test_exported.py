"""What the exported runtimes share: batches run on lanes, in order, each lane on its own thread."""

from __future__ import annotations

import threading

import numpy as np
import pytest

from workbench.embedding.exported import on_lanes


def _recording_lane(seen: list[tuple[str, int]]):
    def lane(arrays: list[np.ndarray]) -> np.ndarray:
        seen.append((threading.current_thread().name, int(arrays[0][0, 0])))
        return arrays[0].astype(np.float32) * 10

    return lane


def _batches(count: int) -> list[list[np.ndarray]]:
    return [[np.array([[number]], dtype=np.int64)] for number in range(count)]


def test_two_lanes_return_every_batchs_output_in_order_each_from_its_own_thread():
    first: list[tuple[str, int]] = []
    second: list[tuple[str, int]] = []
    outputs = on_lanes([_recording_lane(first), _recording_lane(second)], _batches(5))
    assert [float(output[0, 0]) for output in outputs] == [0.0, 10.0, 20.0, 30.0, 40.0]
    # lane k takes batches k, k + 2, ...: the longest-first order deals both a like share
    assert [number for _, number in first] == [0, 2, 4] and [number for _, number in second] == [1, 3]
    assert {name for name, _ in first}.isdisjoint({name for name, _ in second})


def test_one_lane_runs_in_the_callers_thread():
    seen: list[tuple[str, int]] = []
    on_lanes([_recording_lane(seen)], _batches(3))
    assert {name for name, _ in seen} == {threading.current_thread().name}


def test_a_lanes_error_reaches_the_caller():
    def failing(arrays: list[np.ndarray]) -> np.ndarray:
        raise RuntimeError("input 'attention_mask' has the wrong shape")

    with pytest.raises(RuntimeError, match="attention_mask"):
        on_lanes([_recording_lane([]), failing], _batches(4))

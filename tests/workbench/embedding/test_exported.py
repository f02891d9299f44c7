"""What the exported runtimes share: batches run on lanes, in order, each lane on its own thread."""

from __future__ import annotations

import threading

import numpy as np
import pytest

from workbench.embedding.exported import on_lanes


def _recording_lane(seen: list[tuple[str, int]], meet: threading.Barrier | None = None):
    def lane(arrays: list[np.ndarray]) -> np.ndarray:
        if meet is not None and not seen:
            meet.wait()  # each lane's first batch waits for the other's: they run at once, or time out
        seen.append((threading.current_thread().name, int(arrays[0][0, 0])))
        return arrays[0].astype(np.float32) * 10

    return lane


def _batches(count: int) -> list[list[np.ndarray]]:
    return [[np.array([[number]], dtype=np.int64)] for number in range(count)]


def test_two_lanes_run_at_once_each_batch_once_and_return_the_outputs_in_order():
    first: list[tuple[str, int]] = []
    second: list[tuple[str, int]] = []
    meet = threading.Barrier(2, timeout=10)
    outputs = on_lanes([_recording_lane(first, meet), _recording_lane(second, meet)], _batches(7))
    assert [float(output[0, 0]) for output in outputs] == [0.0, 10.0, 20.0, 30.0, 40.0, 50.0, 60.0]
    ran = sorted(number for _, number in first + second)
    assert ran == list(range(7)) and first and second
    assert {name for name, _ in first}.isdisjoint({name for name, _ in second})
    assert threading.current_thread().name not in {name for name, _ in first + second}


def test_a_free_lane_takes_the_batches_a_slow_lane_has_not_started():
    slow: list[tuple[str, int]] = []
    fast: list[tuple[str, int]] = []
    started, release = threading.Event(), threading.Event()

    def slow_lane(arrays: list[np.ndarray]) -> np.ndarray:
        started.set()
        release.wait(timeout=10)  # held until the fast lane has run everything else
        slow.append((threading.current_thread().name, int(arrays[0][0, 0])))
        return arrays[0].astype(np.float32)

    def fast_lane(arrays: list[np.ndarray]) -> np.ndarray:
        started.wait(timeout=10)
        fast.append((threading.current_thread().name, int(arrays[0][0, 0])))
        if len(fast) == 5:
            release.set()
        return arrays[0].astype(np.float32)

    on_lanes([slow_lane, fast_lane], _batches(6))
    assert len(slow) == 1 and len(fast) == 5


def test_one_lane_runs_in_the_callers_thread():
    seen: list[tuple[str, int]] = []
    on_lanes([_recording_lane(seen)], _batches(3))
    assert {name for name, _ in seen} == {threading.current_thread().name}


def test_a_lanes_error_reaches_the_caller():
    def failing_on_the_third(arrays: list[np.ndarray]) -> np.ndarray:
        if int(arrays[0][0, 0]) == 2:
            raise RuntimeError("input 'attention_mask' has the wrong shape")
        return arrays[0].astype(np.float32)

    with pytest.raises(RuntimeError, match="attention_mask"):
        on_lanes([failing_on_the_third, failing_on_the_third], _batches(4))

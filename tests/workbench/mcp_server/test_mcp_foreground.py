"""Questions before jobs: a job's step waits while a tool call is answered, at most its limit, and
a task's ``pace`` is that wait."""

from __future__ import annotations

import threading
import time

import pytest

from workbench.mcp_server.foreground import Foreground
from workbench.mcp_server.jobs import COMPLETED, Jobs, current_progress


def test_on_a_quiet_server_a_job_does_not_wait():
    foreground = Foreground(max_wait_s=10)
    started = time.monotonic()
    assert foreground.wait_turn() is True
    assert time.monotonic() - started < 5  # far below the 10 s it would wait for a call


def test_a_jobs_step_waits_until_the_call_being_answered_ends():
    foreground = Foreground(max_wait_s=10)
    order: list[str] = []
    answering = threading.Event()

    def call() -> None:
        with foreground.answering():
            answering.set()
            time.sleep(0.2)
            order.append("answered")

    caller = threading.Thread(target=call)
    caller.start()
    assert answering.wait(10)
    assert foreground.answering_now == 1
    assert foreground.wait_turn() is True
    order.append("job step")
    caller.join(10)
    assert order == ["answered", "job step"] and foreground.answering_now == 0


def test_under_calls_that_do_not_end_a_jobs_step_waits_only_its_limit():
    foreground = Foreground(max_wait_s=0.05)
    with foreground.answering(), foreground.answering():
        assert foreground.wait_turn() is False
        assert foreground.answering_now == 2
    assert foreground.answering_now == 0 and foreground.wait_turn() is True


def test_a_failing_call_still_counts_down():
    foreground = Foreground(max_wait_s=10)
    with pytest.raises(ValueError, match="检索"), foreground.answering():
        raise ValueError("检索失败")
    assert foreground.answering_now == 0


def test_the_wait_cannot_be_negative():
    with pytest.raises(ValueError, match="must be 0 s or more, got -1"):
        Foreground(max_wait_s=-1)


def test_a_tasks_pace_waits_for_the_calls_its_server_answers():
    foreground = Foreground(max_wait_s=10)
    jobs = Jobs(frozenset({"tune"}), foreground)
    steps: list[str] = []

    def run():
        steps.append("first step")
        current_progress().pace()
        steps.append("second step")
        return {"content": []}, None

    with foreground.answering():
        job = jobs.start("tune", run)
        deadline = time.monotonic() + 10
        while not steps and time.monotonic() < deadline:
            time.sleep(0.01)
        time.sleep(0.1)
        assert steps == ["first step"]  # waiting for the call, not running beside it
    assert job.done.wait(10)
    assert job.status == COMPLETED and steps == ["first step", "second step"]

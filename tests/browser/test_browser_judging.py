"""Judging by keyboard in a real browser: a pool of 3 queries (one Chinese) built with the CLI on a copy
of the demo home, graded on the Judging page with the keys 0-3 and U (undo) in Chromium, exported
as a golden set from the page, and evaluated with ``eval --level span``. Every key reruns only the
judging fragment, never the whole page (read from the server's websocket messages). Screenshots
land in ``test-artifacts/browser/``."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.browser.app_server import (
    ARTIFACTS,
    CHROMIUM,
    CHROMIUM_ARGS,
    NEEDS_CHROMIUM,
    STEP_S,
    script_runs,
    serve,
    settle,
)

pytestmark = [pytest.mark.slow, pytest.mark.skipif(not CHROMIUM.exists(), reason=NEEDS_CHROMIUM)]

QUESTIONS = [
    "Autophagy declines in aged organisms.",
    "How does reciprocal rank fusion combine rankings?",
    "自噬在衰老的生物体中会减少吗？",
]


def _home_with_pool(demo_home: Path, tmp_path: Path) -> Path:
    """A copy of the demo home with the pool "three" (the three questions, bm25 and dense, depth 1)."""
    from workbench.cli import main

    home = tmp_path / "home"
    shutil.copytree(demo_home, home)
    (tmp_path / "three.txt").write_text("\n".join(QUESTIONS) + "\n", encoding="utf-8")
    assert main(["golden", "queries", str(tmp_path / "three.txt"), "--out", "three", "--home", str(home)]) == 0
    assert (
        main(
            [
                "golden",
                "pool",
                "--queries",
                "three",
                "--configs",
                "retrieval.mode=bm25",
                "retrieval.mode=dense",
                "--depth",
                "1",
                "--seed",
                "7",
                "--home",
                str(home),
            ]
        )
        == 0
    )
    return home


def test_judge_a_pool_of_three_queries_by_keyboard_export_and_evaluate(demo_home: Path, tmp_path: Path, capsys):
    from playwright.sync_api import expect, sync_playwright

    from workbench.cli import main
    from workbench.golden import judging
    from workbench.service import Workbench

    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    home = _home_with_pool(demo_home, tmp_path)
    _, items = judging.load_pool(Workbench(home).catalog, "three")
    assert {item.query for item in items} == set(QUESTIONS)
    keys = [str(position % 4) for position in range(len(items))]

    frames: list = []  # the server's websocket messages, to tell whole-page runs from fragment runs
    with serve(home, "streamlit-server-judging.log") as url, sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": 1400, "height": 1100})
        page.on("websocket", lambda socket: socket.on("framereceived", lambda payload: frames.append(payload)))
        try:
            page.goto(f"{url}/judging")
            # the warm-up's status polls while it runs, and redraws the page once when it is done:
            # wait it out, so every run counted below is the judging's own
            expect(page.locator(".st-key-warmup_status")).to_contain_text("ready", timeout=STEP_S * 1000)
            name = page.locator(".st-key-judging_judge_input input")
            expect(name).to_be_visible(timeout=STEP_S * 1000)
            settle(page)
            before = len(frames)
            name.fill("Ada")
            name.press("Enter")
            progress = page.get_by_test_id("stProgress")
            expect(progress).to_contain_text(f"0 of {len(items)} chunks judged", timeout=STEP_S * 1000)
            settle(page)
            # the signal is real: the name box is outside the fragment, and naming reruns the page
            assert () in script_runs(frames[before:]), script_runs(frames[before:])
            page.locator(".st-key-judging_chunk").click()  # focus leaves the name box, as a judge's click would
            page.screenshot(path=str(ARTIFACTS / "judging-01-first-chunk.png"), full_page=True)
            before = len(frames)
            page.keyboard.press("2")
            expect(progress).to_contain_text(f"1 of {len(items)} chunks judged", timeout=STEP_S * 1000)
            # the shortcut works once the rerun has drawn Undo enabled (it is disabled with nothing to undo)
            expect(page.get_by_role("button", name="Undo Shortcut U")).to_be_enabled(timeout=STEP_S * 1000)
            page.keyboard.press("U")  # undo the 2
            expect(progress).to_contain_text(f"0 of {len(items)} chunks judged", timeout=STEP_S * 1000)
            for done, key in enumerate(keys, start=1):
                expect(page.locator(".st-key-judging_grade_0 button").first).to_be_visible(timeout=STEP_S * 1000)
                settle(page)  # a key pressed while the previous grade's rerun draws can be lost
                page.keyboard.press(key)
                if done < len(items):
                    expect(progress).to_contain_text(f"{done} of {len(items)} chunks judged", timeout=STEP_S * 1000)
            settle(page)
            # every key (grades, undo, the last grade that completes the pool) reran only the judging
            # fragment: no run without fragment ids, which is a whole-page run
            runs = script_runs(frames[before:])
            assert len(runs) >= len(keys) + 2 and all(runs), runs
            expect(page.get_by_text("Every chunk of pool three is judged")).to_be_visible(timeout=STEP_S * 1000)
            # the export sits outside the fragment and was drawn by the last whole-page run
            settle(page)
            export_name = page.locator(".st-key-judging_export_name_three input")
            expect(export_name).to_have_count(1, timeout=STEP_S * 1000)
            export_name.fill("three-ada")
            export_name.press("Enter")
            settle(page)
            expect(export_name).to_have_count(1, timeout=STEP_S * 1000)
            expect(export_name).to_have_value("three-ada")
            page.locator(".st-key-judging_export button").click()
            expect(page.get_by_text("Evaluate it on the Evaluation page", exact=False)).to_be_visible(
                timeout=STEP_S * 1000
            )
            page.screenshot(path=str(ARTIFACTS / "judging-02-exported.png"), full_page=True)
        except Exception:
            page.screenshot(path=str(ARTIFACTS / "judging-failure.png"), full_page=True)
            raise
        finally:
            browser.close()

    given = judging.judgements(Workbench(home).catalog, "three", "Ada")
    assert sorted((j.query_id, j.chunk_id, j.grade) for j in given) == sorted(
        (item.query_id, item.chunk_id, int(key)) for item, key in zip(items, keys, strict=False)
    )
    exported = [
        json.loads(line) for line in (home / "golden_sets" / "three-ada.jsonl").read_text(encoding="utf-8").splitlines()
    ]
    assert [q["query"] for q in exported] == QUESTIONS
    capsys.readouterr()
    assert (
        main(
            [
                "eval",
                "-c",
                "demo",
                "--golden",
                "three-ada",
                "--level",
                "span",
                "--home",
                str(home),
                "--no-store",
                "--json",
            ]
        )
        == 0
    )
    result = json.loads(capsys.readouterr().out)
    assert result["golden"] == "three-ada" and "ndcg@10" in result["metrics"]

"""The ``tune`` command on the lexicon home: the plan, progress, the held-out verdict and the saving rule."""

from __future__ import annotations

import json
import random
import re

from tests.workbench.tuning_fixtures import FILLER, NOTES, code_word, golden_lines
from workbench.cli import main


def run_cli(capsys, home, *argv) -> tuple[int, str, str]:
    code = main([*argv, "--home", str(home)])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


DENSE_START = ("--set", "retrieval.mode=dense", "--seed", "1")
HOLDOUT = ("--holdout", "0.3")  # 60 queries default to 5-fold (tuning.folds_below); these tests check one holdout


def test_tune_prints_the_plan_the_verdict_and_saves_a_truly_better_winner(lexicon_home, capsys):
    code, out, err = run_cli(
        capsys,
        lexicon_home.home,
        *("tune", "-c", "lex", "--golden", "codes", "--keys", "retrieval.mode,mmr.enabled", *DENSE_START),
        *(*HOLDOUT, "--save-preset", "best"),
    )
    assert code == 0, err
    assert "tune lex / codes: 60 scorable queries, ndcg@10 at doc level" in out
    assert "split: tuned on 70%, held out 30%, seed 1" in out
    assert "space: 2 keys, 6 configurations; search: every point (exhaustive)" in out
    assert "cost: layout recursive-100c-0" in out and "nothing to embed" in out
    assert "[holdout, study 1/1] trial 6/6: best ndcg@10" in err
    assert "winner (the study on the tuning queries" in out and "retrieval.mode=bm25" in out
    assert "95% interval [+" in out and "over 18 queries" in out and ": better than your current configuration" in out
    assert "saved preset 'best': retrieval.mode=bm25" in out
    code, out, _ = run_cli(capsys, lexicon_home.home, "presets")
    assert "best" in out and "held-out ndcg@10" in out


def test_tune_saves_nothing_without_a_real_gain_and_force_saves_it_marked(lexicon_home, capsys):
    args = ("tune", "-c", "lex", "--golden", "noise", "--keys", "retrieval.mode,mmr.enabled", *DENSE_START, *HOLDOUT)
    code, out, _ = run_cli(capsys, lexicon_home.home, *args, "--save-preset", "x")
    assert code == 0
    assert "not distinguishable from your current configuration" in out
    assert "nothing saved as 'x'" in out
    code, out, _ = run_cli(capsys, lexicon_home.home, "presets")
    assert "\nx " not in out and not out.startswith("x ")
    code, out, _ = run_cli(capsys, lexicon_home.home, *args, "--resume", "--save-preset", "x", "--force")
    assert code == 0 and "kept from before" in out and "saved preset 'x' (forced)" in out


def test_tune_json_report(lexicon_home, capsys):
    code, out, _ = run_cli(
        capsys,
        lexicon_home.home,
        *("tune", "-c", "lex", "--golden", "codes", "--keys", "retrieval.mode", "--folds", "3", "--trials", "3"),
        *(*DENSE_START, "--json"),
    )
    assert code == 0
    report = json.loads(out)
    assert report["split"] == "3-fold nested cross-validation, seed 1"
    assert [s["part"] for s in report["studies"]] == ["fold 1 of 3", "fold 2 of 3", "fold 3 of 3", "all queries"]
    assert report["held_out"]["queries"] == 60 and report["winner"] == {"retrieval.mode": "bm25"}
    assert report["pareto"] and all({"metric", "p95_ms"} <= set(point) for point in report["pareto"])


def test_tune_usage_errors_exit_2_and_name_the_fix(lexicon_home, capsys):
    home = lexicon_home.home
    base = ("tune", "-c", "lex", "--golden", "codes")
    code, _, err = run_cli(capsys, home, *base, "--force")
    assert code == 2 and "--force only applies with --save-preset" in err
    code, _, err = run_cli(capsys, home, *base, "--keys", "bm25.k1")
    assert code == 2 and "--keys: bm25.k1 cannot be tuned by name" in err
    code, _, err = run_cli(capsys, home, *base, "--resume")
    assert code == 2 and "no study 'lex-codes-" in err and "to resume" in err
    code, _, err = run_cli(capsys, home, *base, "--holdout", "1.5")
    assert code == 2 and "--holdout must be between 0 and 1" in err


def test_a_golden_set_of_another_collection_is_refused_naming_the_sets_that_fit(lexicon_home, capsys):
    """Issue 36: the demo's set scored 0.0000 on every trial of another collection, and nothing said why."""
    home = lexicon_home.home
    foreign = [{"id": f"d{i}", "query": f"question {i}", "relevant": [f"scifact-{i}"]} for i in range(3)]
    (home / "golden_sets" / "demo.jsonl").write_text("".join(json.dumps(line) + "\n" for line in foreign), "utf-8")
    for command in ("tune", "eval", "sweep", "check"):
        extra = {
            "sweep": ("--grid", "mmr.enabled=false,true"),
            "check": ("--baseline", "default", "--preset", "default"),
        }
        code, out, err = run_cli(capsys, home, command, "-c", "lex", "--golden", "demo", *extra.get(command, ()))
        assert code == 2, (command, out, err)
        assert (
            "golden set 'demo' does not judge collection 'lex': the collection holds 0 of its 3 judged documents "
            in err
        ), command
        assert "(0%), fewer than the 50% needed; sets that fit: codes, noise" in err, command


def test_progress_lines_off_a_terminal_never_repeat_the_last_trials_line(capsys):
    from workbench.cli.tune import _ProgressPrinter
    from workbench.tuning.study import StudyProgress, TrialRecord
    from workbench.tuning.tune import TuneProgress

    printer = _ProgressPrinter("ndcg@10")
    printer.tty = False
    best = TrialRecord(9, {"retrieval.mode": "bm25"}, 0.5, 2.0, "f", 0.1)

    def event(done: int, message: str = "", record: TrialRecord | None = best) -> TuneProgress:
        return TuneProgress("holdout", 1, 1, StudyProgress("s", done, 10, record, 1.0, None, message), None, message)

    printer(event(0, "starting", None))
    for done in range(1, 10):  # trial 1 is the first best; 2-9 neither improve nor are a tenth
        printer(event(done, record=TrialRecord(0, {}, 0.4, 2.0, "e", 0.1) if done < 5 else best))
    printer(event(10))  # the tenth trial: printed
    printer(event(10, "finished"))  # the study's end: the same line, not printed again
    lines = capsys.readouterr().err.splitlines()
    assert lines == [
        "[holdout, study 1/1] trial 0/10: no trial yet",
        "[holdout, study 1/1] trial 1/10: best ndcg@10 0.4000 (p95 2.0 ms)",
        "[holdout, study 1/1] trial 5/10: best ndcg@10 0.5000 (p95 2.0 ms)",
        "[holdout, study 1/1] trial 10/10: best ndcg@10 0.5000 (p95 2.0 ms)",
    ]


def test_check_names_the_queries_a_tuned_presets_study_saw_and_can_leave_them_out(lexicon_home, capsys):
    """Issue 36: check compared a tuned preset on all 24 queries, 17 of which it was tuned on, silently."""
    home = lexicon_home.home
    tune = ("tune", "-c", "lex", "--golden", "codes", "--keys", "retrieval.mode,mmr.enabled", *DENSE_START, *HOLDOUT)
    code, out, err = run_cli(capsys, home, *tune, "--save-preset", "best")
    assert code == 0 and "saved preset 'best'" in out, err
    check = ("check", "-c", "lex", "--golden", "codes", "--preset", "best", "--baseline", "default", "--no-store")
    code, out, err = run_cli(capsys, home, *check, "--permutations", "500")
    assert code == 0, err
    # 60 scorable queries, 30% (18) held out with seed 1: the study tuned on the other 42
    assert "the candidate's study lex-codes-" in out and "tuned on 42 of the 60 queries compared" in out
    assert "on 60 paired queries" in out
    code, out, err = run_cli(capsys, home, *check, "--permutations", "500", "--held-out-only")
    assert code == 0, err
    assert "compared only on the 18 queries study lex-codes-" in out and "(42 it tuned on left out)" in out
    assert "on 18 paired queries" in out
    code, _, err = run_cli(capsys, home, *check[:-5], "--preset", "default", "--baseline", "default", "--held-out-only")
    assert code == 2 and "--held-out-only needs a preset saved by tune" in err
    # issue 47: a second opinion, on questions written after the study (the same code words, other filler)
    rng = random.Random(99)
    fresh = [
        {"id": f"f{n:02d}", "query": f"{code_word(n)} {' '.join(rng.sample(FILLER, 3))}", "relevant": [f"note-{n:02d}"]}
        for n in range(NOTES)
    ]
    write_set(home, "fresh", fresh)
    opinion = ("check", "-c", "lex", "--golden", "fresh", "--preset", "best", "--no-store", "--permutations", "500")
    code, out, err = run_cli(capsys, home, *opinion)
    assert code == 0, err
    assert "preset 'best' against its study's starting configuration (preset default with retrieval.mode=dense)" in out
    line = next(line for line in out.splitlines() if line.startswith("second opinion on 60 queries of 'fresh'"))
    found = re.search(
        r"gain ([-+]\d\.\d{4}) \[[-+]\d\.\d{4}, [-+]\d\.\d{4}\]; study \S+ reported ndcg@10 gain [-+]\d\.\d{4} "
        r"\[([-+]\d\.\d{4}), ([-+]\d\.\d{4})\] over 18 held-out queries of 'codes' at doc level: the fresh gain lies "
        r"(inside|below|above)",
        line,
    )
    assert found, line
    gain, low, high = (float(found.group(i)) for i in (1, 2, 3))
    assert found.group(4) == ("inside" if low <= gain <= high else "below" if gain < low else "above")
    assert gain > 0  # bm25 finds the code words on fresh questions too
    code, _, err = run_cli(capsys, home, *opinion[:6], "default", "--no-store")
    assert code == 2 and "preset 'default' was not saved by tune, so it has no reported gain to check" in err


def write_set(home, name: str, lines: list[dict]) -> None:
    (home / "golden_sets" / f"{name}.jsonl").write_text(
        "".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines), encoding="utf-8"
    )


def test_tune_on_a_set_saturated_at_doc_level_warns_and_names_the_fix(lexicon_home, capsys):
    """Issue 47: Tune's defaults on a 12-document collection said "not distinguishable" every time."""
    home = lexicon_home.home
    # the qrels' document and the sentence inside it, as a BEIR import writes them: judged at doc level
    lines = golden_lines("codes")
    for number, line in enumerate(lines):
        line["relevant"].append({"doc": f"note-{number:02d}.md", "quote": code_word(number)})
    write_set(home, "codes-both", lines)
    tune = ("tune", "-c", "lex", "--golden", "codes-both", "--keys", "mmr.enabled", "--trials", "2", *HOLDOUT)
    code, out, err = run_cli(capsys, home, *tune, "--set", "retrieval.mode=bm25")
    assert code == 0, err
    assert "level: doc level: golden set 'codes-both' was judged by whole document" in out
    warning = next(line for line in out.splitlines() if line.startswith("WARNING: at doc level"))
    assert "of 60 queries already find every document in the top 10: the set cannot show a gain at this level" in (
        warning
    )
    assert warning.endswith(
        "evaluate at span level (--level span: 60 queries have passage judgements), or write harder questions"
    )
    assert "note: at doc level" in out  # said again beside the verdict
    code, out, err = run_cli(capsys, home, *tune, "--set", "retrieval.mode=bm25", "--level", "span", "--json")
    assert code == 0, err
    plan = json.loads(out)["plan"]
    assert plan["level"]["level"] == "span" and plan["level"]["given"]


def test_tune_defaults_follow_the_judging_and_fold_a_short_set(lexicon_home, capsys):
    home = lexicon_home.home
    lines = [
        {"id": f"c{n:02d}", "query": line["query"], "relevant": [{"doc": f"note-{n:02d}.md", "quote": code_word(n)}]}
        for n, line in enumerate(golden_lines("codes"))
    ]
    write_set(home, "passages", lines)
    tune = ("tune", "-c", "lex", "--golden", "passages", "--keys", "retrieval.mode", "--trials", "1", *DENSE_START)
    code, out, err = run_cli(capsys, home, *tune, "--json")
    assert code == 0, err
    report = json.loads(out)
    assert report["level"] == "span" and report["plan"]["level"]["reason"].startswith(
        "span level: golden set 'passages' was judged by passage (60 of its 60 scorable queries"
    )
    assert report["split"] == "5-fold nested cross-validation, seed 1"
    assert report["plan"]["split"]["reason"].startswith(
        "5-fold nested cross-validation: 60 scorable queries are fewer than tuning.folds_below 300"
    )
    assert report["held_out"]["queries"] == 60 and report["plan"]["held_out_queries"] == 60
    code, out, err = run_cli(capsys, home, *tune, "--set", "tuning.folds_below=50", "--json")
    assert code == 0, err
    assert json.loads(out)["split"] == "tuned on 70%, held out 30%, seed 1"
    code, out, err = run_cli(capsys, home, "eval", "-c", "lex", "--golden", "passages", "--no-store")
    assert code == 0, err
    assert "level=span" in out and "span level: golden set 'passages' was judged by passage" in out

"""A new user's own collection end to end: files, collection, golden set, tune, preset, MCP, a second opinion.

    .venv/bin/python bench/bench_own_collection.py            # 11 files, 60 questions and the growth planned
    .venv/bin/python bench/bench_own_collection.py --smoke    # the same path on 10 short files, few trials

The folder is generated: English and Chinese PDFs with tables and a boilerplate paragraph closing
every section (reportlab, the CJK font /usr/share/fonts/truetype/wqy/wqy-microhei.ttc), a DOCX,
a PPTX, a PNG of text (read by OCR), a Markdown and a Chinese text file. Each section names parts
by rare codes (``KX-204``, ``QF-318``).

The LLM is a local fake OpenAI-compatible server (``tests/fake_openai.py``) that writes each
specific and abstract question from the passage it is given, quoting a sentence of the passage
that names a part code. A specific question asks about that code and one other word of the
sentence, phrased unlike the text ("Which rule applies to the torque of KX-204?"); an abstract one
asks for the code by its part and number ("Which unit's valve goes with 425?"), which many
sentences of the same template nearly match. Such questions favour exact keyword matching (BM25)
over the default hybrid, whose English-only embedding model finds every sentence of a template
alike: a study can find that honestly. Multi-hop and unanswerable questions get the fake's usual replies, which
quote a passage's first sentence (sometimes the boilerplate: it closes every section, so a quote
of it occurs in more places than ``synth.max_quote_places`` and the question is dropped, counted).

Then, with nothing chosen but the collection and the golden set (``workbench.service.tune_flow``:
the defaults of ``tune -c C --golden G``): the plan; when it finds the set short, its offer taken
as a user takes it in the app ("Write about N more questions", ``tune --grow-golden``) and the
plan again on the grown set; the study, the verdict with both means and
the gain, the preset saved only when the gain holds, one MCP query with that preset over stdio
(the launch the app shows), and a fresh golden set written later by "another model" (the fake
quoting a different code sentence of each passage) on which ``check --preset P --golden FRESH``
gives its second opinion. Prints each step's wall time, the plan, the verdict and the check,
and the load average (timings mean something only below 2.5 on 2 cores). Asserts nothing.
"""

from __future__ import annotations

import argparse
import asyncio
import io
import json
import os
import re
import sys
import tempfile
import time
import zlib
from collections.abc import Callable
from contextlib import redirect_stdout
from pathlib import Path
from typing import TypeVar

PROJECT_DIR = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(PROJECT_DIR))
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

from bench.printing import table  # noqa: E402

T = TypeVar("T")
CJK_FONT = "/usr/share/fonts/truetype/wqy/wqy-microhei.ttc"
LATIN_FONT = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"
COLLECTION = "own"
GOAL_S = 600.0
CODE = re.compile(r"(?<![A-Za-z0-9])[A-Z]{2}-\d{3}(?![0-9])")  # no \b: a CJK character is a word character

EN_BOILERPLATE = "This section is maintained by the Kestrel reliability office; check the intranet for updates."
ZH_BOILERPLATE = "本节内容由设备管理部维护，如有更新以内网公告为准。"
EN_PARTS = [
    ("pump", "impeller", "torque", "gasket", "bearing", "coupling"),
    ("valve", "actuator", "seal", "spring", "stem", "bonnet"),
    ("compressor", "filter", "piston", "manifold", "sensor", "damper"),
    ("conveyor", "roller", "belt", "tensioner", "pulley", "guard"),
]
ZH_PARTS = [
    ("水泵", "叶轮", "扭矩", "垫片", "轴承", "联轴器"),
    ("阀门", "执行器", "密封圈", "弹簧", "阀杆", "阀盖"),
    ("压缩机", "滤芯", "活塞", "歧管", "传感器", "阻尼器"),
    ("输送机", "托辊", "皮带", "张紧器", "滑轮", "护罩"),
]
PART_WORDS = {word for parts in EN_PARTS + ZH_PARTS for word in parts}
EN_TEMPLATES = (
    "Unit {code} uses a {a} that must be inspected every {n} operating hours.",
    "The {b} of part {code} is replaced when wear exceeds {m} millimetres.",
    "Technicians tighten the {a} on {code} to {n} newton metres after cleaning.",
)
ZH_TEMPLATES = (
    "设备{code}的{a}每运行{n}小时必须检查一次。",
    "部件{code}的{b}磨损超过{m}毫米时应当更换。",
    "清洁之后，技术人员将{code}上的{a}拧紧至{n}牛米。",
)


# -- the folder ---------------------------------------------------------------------------------------


def code_for(prefix: str, number: int) -> str:
    return f"{prefix}-{100 + number * 7 % 900:03d}"


def sections(language: str, document: int, count: int, per: int) -> list[tuple[str, list[str], list[list[str]]]]:
    """(heading, sentences, table rows) per section: every sentence names its own part code."""
    parts = (EN_PARTS if language == "en" else ZH_PARTS)[document % 4]
    templates = EN_TEMPLATES if language == "en" else ZH_TEMPLATES
    prefix = ("KX", "QF", "RT", "MV", "ZB", "LC", "HP", "DS")[document % 8]
    found = []
    for section in range(count):
        sentences, rows = [], []
        for line in range(per):
            number = document * 100 + section * 10 + line
            code = code_for(prefix, number)
            a, b = parts[(section + line) % 6], parts[(section + line + 2) % 6]
            n, m = 50 + number % 17 * 25, 1 + number % 9
            sentences.append(templates[line % len(templates)].format(code=code, a=a, b=b, n=n, m=m))
            rows.append([code, a, str(n)])
        heading = f"{parts[0].title()} {section + 1}" if language == "en" else f"第{section + 1}节 {parts[0]}"
        found.append((heading, sentences, rows))
    return found


def write_pdf(path: Path, title: str, language: str, document: int, count: int, per: int) -> None:
    from reportlab.lib.pagesizes import A4
    from reportlab.lib.styles import ParagraphStyle
    from reportlab.pdfbase import pdfmetrics
    from reportlab.pdfbase.ttfonts import TTFont
    from reportlab.platypus import Paragraph, SimpleDocTemplate, Spacer, Table

    font = "WQY" if language == "zh" else "DejaVu"
    if font not in pdfmetrics.getRegisteredFontNames():
        pdfmetrics.registerFont(TTFont(font, CJK_FONT if font == "WQY" else LATIN_FONT))
    body = ParagraphStyle("body", fontName=font, fontSize=10, leading=15, wordWrap="CJK" if font == "WQY" else None)
    heading = ParagraphStyle("heading", parent=body, fontSize=14, leading=20, spaceBefore=8)
    story = [Paragraph(title, ParagraphStyle("title", parent=body, fontSize=18, leading=24)), Spacer(1, 8)]
    header = ["Code", "Part", "Hours"] if language == "en" else ["编号", "部件", "小时"]
    for name, sentences, rows in sections(language, document, count, per):
        story.append(Paragraph(name, heading))
        story.append(Paragraph(" ".join(sentences) if language == "en" else "".join(sentences), body))
        story.append(Table([header, *rows], style=[("FONT", (0, 0), (-1, -1), font, 9)]))
        story.append(Paragraph(EN_BOILERPLATE if language == "en" else ZH_BOILERPLATE, body))
    SimpleDocTemplate(str(path), pagesize=A4).build(story)


def write_docx(path: Path, document: int, count: int, per: int) -> None:
    import docx

    file = docx.Document()
    file.add_heading("Valve field notes", level=1)
    for name, sentences, rows in sections("en", document, count, per):
        file.add_heading(name, level=2)
        file.add_paragraph(" ".join(sentences))
        table_ = file.add_table(rows=len(rows) + 1, cols=3)
        for cell, text in zip(table_.rows[0].cells, ("Code", "Part", "Hours"), strict=True):
            cell.text = text
        for row, values in zip(table_.rows[1:], rows, strict=True):
            for cell, text in zip(row.cells, values, strict=True):
                cell.text = text
        file.add_paragraph(EN_BOILERPLATE)
    file.save(str(path))


def write_pptx(path: Path, document: int, count: int, per: int) -> None:
    from pptx import Presentation
    from pptx.util import Inches

    deck = Presentation()
    for name, sentences, _ in sections("zh", document, count, per):
        slide = deck.slides.add_slide(deck.slide_layouts[1])
        slide.shapes.title.text = name
        slide.placeholders[1].text = "\n".join(sentences)
        box = slide.shapes.add_textbox(Inches(0.5), Inches(6.5), Inches(9), Inches(0.5))
        box.text_frame.text = ZH_BOILERPLATE
    deck.save(str(path))


def write_png(path: Path, document: int, per: int) -> None:
    from PIL import Image, ImageDraw, ImageFont

    _, sentences, _ = sections("en", document, 1, per)[0]
    font = ImageFont.truetype(LATIN_FONT, 28)
    image = Image.new("RGB", (1700, 90 + 60 * len(sentences)), "white")
    draw = ImageDraw.Draw(image)
    draw.text((40, 20), "Whiteboard: conveyor checks", fill="black", font=font)
    for row, sentence in enumerate(sentences):
        draw.text((40, 80 + 60 * row), sentence, fill="black", font=font)
    image.save(path)


def write_text(path: Path, language: str, document: int, count: int, per: int) -> None:
    lines = ["# Compressor handbook" if language == "en" else "# 压缩机维护说明", ""]
    for name, sentences, rows in sections(language, document, count, per):
        lines += [f"## {name}", "", (" " if language == "en" else "").join(sentences), ""]
        lines += ["| code | part | hours |", "|---|---|---|", *(f"| {' | '.join(r)} |" for r in rows), ""]
        lines += [EN_BOILERPLATE if language == "en" else ZH_BOILERPLATE, ""]
    path.write_text("\n".join(lines), encoding="utf-8")


def write_folder(folder: Path, smoke: bool, count: int = 16, per: int = 4) -> list[Path]:
    """Eleven files (ten with --smoke), English and Chinese, of six kinds; ``count`` sections of
    ``per`` sentences each."""
    count, per = (2, 2) if smoke else (count, per)
    folder.mkdir(parents=True, exist_ok=True)
    files = []
    for number in range(3):
        files.append(folder / f"pump-manual-{number + 1}.pdf")
        write_pdf(files[-1], f"Kestrel pump manual {number + 1}", "en", number, count, per)
        files.append(folder / f"设备手册-{number + 1}.pdf")
        write_pdf(files[-1], f"设备维护手册 第{number + 1}册", "zh", number + 10, count, per)
    files.append(folder / "valve-notes.docx")
    write_docx(files[-1], 20, count, per)
    files.append(folder / "输送机培训.pptx")
    write_pptx(files[-1], 21, count, per)
    files.append(folder / "whiteboard.png")
    write_png(files[-1], 22, per)
    if not smoke:
        files.append(folder / "compressor.md")
        write_text(files[-1], "en", 23, count, per)
    files.append(folder / "压缩机说明.txt")
    write_text(files[-1], "zh", 24, count, per)
    return files


# -- the fake LLM -------------------------------------------------------------------------------------


def code_sentences(passage: str) -> list[str]:
    """The passage's prose sentences naming a part code (tables and headings left out)."""
    prose = " ".join(line for line in passage.splitlines() if line.strip() and not line.lstrip().startswith(("|", "#")))
    joined = re.sub(r"(?<=[\u3400-\u9fff，。])\s+(?=[\u3400-\u9fff，。])", "", " ".join(prose.split()))
    sentences = re.findall(r".+?(?:[.!?](?=\s|$)|[。！？])", joined)
    return [s.strip() for s in sentences if CODE.search(s)]


EN_QUESTIONS = (
    "What do the maintenance notes say about {code} and its {other}?",
    "Which rule applies to the {other} of {code}?",
    "What limit is given for {code} concerning the {other}?",
    "How should the {other} on {code} be handled?",
)
ZH_QUESTIONS = (
    "请问{code}在日常保养中关于{other}有什么要求？",
    "{code}的{other}应当怎样处理？",
    "关于{code}的{other}，手册规定了什么？",
)


def rare_term_question(sentence: str) -> str:
    """A question naming the sentence's part code and one more of its words, phrased unlike it
    (the phrasing varies with the code, as a model's would)."""
    match = CODE.search(sentence)
    code = match.group(0) if match else "the part"
    turn = sum(map(ord, code))
    named = [word for word in sorted(PART_WORDS, key=len, reverse=True) if word in sentence.replace(code, " ")]
    if re.search(r"[\u4e00-\u9fff]", sentence):
        other = named[0] if named else "部件"
        return ZH_QUESTIONS[turn % len(ZH_QUESTIONS)].format(code=code, other=other)
    other = named[0] if named else "maintenance"
    return EN_QUESTIONS[turn % len(EN_QUESTIONS)].format(code=code, other=other)


EN_WHICH = (
    "Which unit's {part} goes with {number}?",
    "Which part code has the {part} figure of {number}?",
    "For which code is {number} the number given for its {part}?",
)
ZH_WHICH = (
    "哪个编号的{part}对应{number}？",
    "{part}的数值为{number}的是哪个部件编号？",
)


def which_code_question(sentence: str) -> str | None:
    """A question that asks for the sentence's part code by its part and number, without naming
    the code: the answer turns on one number and one word the sentence shares with many others,
    which exact matching weighs and a general-purpose embedding model mostly does not."""
    match = CODE.search(sentence)
    if match is None:
        return None
    rest = sentence.replace(match.group(0), " ")
    numbers = re.findall(r"\d+", rest)
    parts = [word for word in sorted(PART_WORDS, key=len, reverse=True) if word in rest]
    if not numbers or not parts:
        return None
    turn = sum(map(ord, match.group(0)))
    chinese = re.search(r"[\u4e00-\u9fff]", sentence) is not None
    templates = ZH_WHICH if chinese else EN_WHICH
    return templates[turn % len(templates)].format(part=parts[0], number=numbers[0])


def pick_sentence(found: list[str], passage: str, purpose: str, later: bool) -> str:
    """One of the passage's code sentences, drawn by a hash of the passage and the question's kind:
    the same draw for the same request (a resumed run asks again), alike in distribution for both
    models, and never the first model's sentence for the later one when there is another (a fresh
    set asks other questions from the same kind of text, not questions from other kinds of text)."""

    def draw(salt: str, among: list[str]) -> str:
        return among[zlib.crc32(f"{salt}|{purpose}|{passage}".encode()) % len(among)]

    first = draw("first", found)
    if not later:
        return first
    others = [sentence for sentence in found if sentence != first]
    return draw("later", others or found)


def fake_endpoint(later: Callable[[], bool]):
    """The tests' fake OpenAI-compatible server, writing specific questions about rare part codes;
    ``later()`` True makes it quote another code sentence of each passage, drawn alike (a fresh set's questions)."""
    from tests.fake_openai import FakeOpenAI
    from workbench.llm.prompt_data import data_blocks

    class RareTermFake(FakeOpenAI):
        def chat_reply(self, messages: list[dict]) -> tuple[str, str]:
            purpose, reply = super().chat_reply(messages)
            if purpose not in ("golden.synth.specific", "golden.synth.abstract"):
                return purpose, reply
            user = next(m["content"] for m in reversed(messages) if m.get("role") == "user")
            passage = next((text for name, text in data_blocks(user) if name.startswith("passage")), "")
            found = code_sentences(passage)
            if not found:
                return purpose, reply
            sentence = pick_sentence(found, passage, purpose, later())
            asked = rare_term_question(sentence)
            if purpose.endswith("abstract"):
                asked = which_code_question(sentence) or asked
            return purpose, json.dumps({"question": asked, "quote": sentence}, ensure_ascii=False)

    return RareTermFake().start()


# -- the flow -----------------------------------------------------------------------------------------


def load() -> str:
    one, five, fifteen = os.getloadavg()
    return f"{one:.2f} {five:.2f} {fifteen:.2f}"


class Steps:
    def __init__(self) -> None:
        self.rows: list[list[str]] = []
        self.started = time.perf_counter()

    def timed(self, name: str, action: Callable[[], T]) -> T:
        started = time.perf_counter()
        result = action()
        self.rows.append([name, f"{time.perf_counter() - started:.1f}", load()])
        print(f"  {name}: {time.perf_counter() - started:.1f} s (load {load()})", flush=True)
        return result

    @property
    def total_s(self) -> float:
        return time.perf_counter() - self.started


async def ask_mcp(launch, question: str) -> tuple[str, int]:
    """One query over stdio with the launch the app shows: the first citation's file and the count."""
    from mcp.client.client import Client
    from mcp.client.stdio import StdioServerParameters

    parameters = StdioServerParameters(
        command=launch.command(), args=launch.args(), env={**os.environ, **launch.env()}, cwd=str(PROJECT_DIR)
    )
    async with Client(parameters) as client:
        result = await client.call_tool("query_knowledge_hub", {"query": question, "top_k": 5})
        if result.is_error:
            raise RuntimeError(str(getattr(result.content[0], "text", result.content[0]))[:300])
        citations = (result.structured_content or {}).get("citations", [])
        return (citations[0].get("source", "?") if citations else "none"), len(citations)


def print_plan(title: str, plan) -> None:
    print(title)
    for line in plan.describe():
        print(f"  {line}")


def run(smoke: bool, home: Path, folder: Path) -> int:
    from workbench.cli import main as cli
    from workbench.config import WorkbenchConfig
    from workbench.golden.build import plan_synth, run_synth
    from workbench.mcp_server.client_config import McpLaunch
    from workbench.service import Workbench, tune_flow
    from workbench.service.commands import grow_golden
    from workbench.tuning.plan import plan_tune
    from workbench.tuning.tune import run_tune, save_winner

    steps = Steps()
    later = {"on": False}
    fake = fake_endpoint(lambda: later["on"])
    os.environ.update({k: v for k, v in fake.env().items() if v})
    for name in ("OPENAI_BASE_URL", "OPENAI_API_KEY", "WORKBENCH_LLM_API_KEY"):
        os.environ.pop(name, None)
    try:
        files = steps.timed("generate the folder", lambda: write_folder(folder, smoke))
        print(f"folder: {len(files)} files: {', '.join(p.name for p in files)}")
        bench = Workbench(home)
        report = steps.timed(
            "new collection (ingest)", lambda: bench.ingest_paths(COLLECTION, files, WorkbenchConfig())
        )
        print(f"ingest: {report.summary()}")
        if smoke:  # few questions and trials (the collection's default preset): the whole path, not its figures
            bench.save_preset("smoke", {"tuning.trials": 2, "tuning.first_questions": 16}, "bench smoke run")
            bench.set_default_preset(COLLECTION, "smoke")
        _, synth = steps.timed("golden set (synthesis)", lambda: tune_flow.write_golden_set(bench, COLLECTION))
        golden = tune_flow.written_set_name(COLLECTION)
        summary = synth.summary()
        print(f"golden set {golden}: {synth.describe()}; rejected {summary['rejected']}")
        print(f"  per language: {summary['languages']}")
        print(f"  per document: { {d: c['kept'] for d, c in summary['documents'].items()} } kept")
        print(f"  {summary['repeated_quotes']} kept questions quote a sentence found in several places")

        request = tune_flow.default_request(bench, COLLECTION, golden)
        plan = steps.timed("plan (evaluate the start)", lambda: plan_tune(bench, request))
        print_plan("plan:", plan)
        study_questions = synth.planned
        if plan.grow is not None and plan.grow.endpoint and smoke:
            print("grow the set: left out of the smoke run (it would write hundreds of questions)")
        elif plan.grow is not None and plan.grow.endpoint:
            # the app's "Write about N more questions" under the plan (tune --grow-golden, MCP grow_golden)
            grown = steps.timed("grow the set (the plan's offer)", lambda: grow_golden(bench, request, plan))
            study_questions += plan.grow.questions
            print(f"grown: {grown}")
            request = tune_flow.default_request(bench, COLLECTION, golden)
            plan = steps.timed("plan again", lambda: plan_tune(bench, request))
            print_plan("plan on the grown set:", plan)
        tuned = steps.timed("tune (defaults)", lambda: run_tune(bench, request))
        verdict = tune_flow.verdict_of(tuned)
        if verdict is None:
            print(f"no verdict: {tuned.notes}")
            return 1
        print("verdict:")
        for line in verdict.lines():
            print(f"  {line}")
        print(f"  winner changes: {tuned.changed_keys()}")
        preset = tune_flow.preset_name(COLLECTION)
        # --smoke forces the save (marked forced in the preset) so its path reaches the MCP query and the check
        decision = save_winner(bench, tuned, preset, force=smoke)
        print(f"preset: {decision.message}")
        rows = [["verdict", f"{verdict.gain.mean:+.4f}", verdict.gain.interval.describe(), str(verdict.gain.queries)]]
        if not decision.saved:
            # nothing to serve and nothing to give a second opinion on: say so rather than end quietly
            print("MCP query and fresh-set check: skipped, no preset was saved (the verdict does not hold)")
            rows.append(["fresh-set check", "-", "skipped: nothing saved", "-"])
        else:
            launch = McpLaunch(home, preset, COLLECTION)
            print(f"MCP launch (stdio, as the app's snippet): {launch.command_line()}")
            asked = synth.kept[0]
            question = asked["query"]
            own = sorted({item["doc"] for item in asked["relevant"]})
            source, cited = steps.timed("MCP query (stdio)", lambda: asyncio.run(ask_mcp(launch, question)))
            hit = "its own document" if source in own else f"not its own document ({', '.join(own)})"
            print(f"MCP with preset {preset}: {question!r} -> {cited} passages, first from {source}: {hit}")

            later["on"] = True
            os.environ["WORKBENCH_LLM_MODEL"] = "fake-llm-later"  # another model: its own replies and journal

            def fresh_set():
                # as many questions asked as for the study's set: a second opinion on fewer could not
                # tell the reported gain from chance (its power is then about the study's)
                config = bench.config_for(COLLECTION)
                n = max(config.tuning.first_questions, study_questions)
                fresh_plan = plan_synth(bench, COLLECTION, config, n=n, seed=7, out=f"{COLLECTION}-fresh")
                return run_synth(bench, fresh_plan)

            fresh = steps.timed("fresh golden set (synthesis)", fresh_set)
            print(f"fresh set: {fresh.describe()}")
            out = io.StringIO()
            with redirect_stdout(out):
                code = steps.timed(
                    "check --preset P --golden FRESH",
                    lambda: cli(
                        ["check", "-c", COLLECTION, "--preset", preset, "--golden", f"{COLLECTION}-fresh"]
                        + ["--home", str(home)]
                    ),
                )
            print(f"check (exit {code}):")
            for line in out.getvalue().splitlines():
                print(f"  {line}")
            opinion = re.search(r"gain ([+-]\d\.\d+) (\[[^\]]+\])", out.getvalue())
            if opinion:
                text = out.getvalue()
                inside = (
                    "inside"
                    if "lies inside" in text
                    else "outside, consistent"
                    if "consistent with the study" in text
                    else "outside"
                )
                rows.append(["fresh-set check", opinion.group(1), opinion.group(2), inside])
        table("Verdict and second opinion", ["what", "gain", "95% interval", "queries / inside"], rows)
    finally:
        fake.stop()
    steps.rows.append(["whole flow", f"{steps.total_s:.1f}", load()])
    table(f"Own collection, step by step (goal: whole flow within {GOAL_S:.0f} s)", ["step", "s", "load"], steps.rows)
    print(f"\n{os.cpu_count()} cores; timings are comparable only at a 1-minute load average below 2.5")
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--smoke", action="store_true", help="ten short files, 16 questions, 2 trials per study")
    parser.add_argument("--keep", metavar="DIR", help="build in DIR and keep it (default: a temporary folder)")
    arguments = parser.parse_args()
    print(f"load average before: {load()} ({os.cpu_count()} cores)")
    if arguments.keep:
        root = Path(arguments.keep)
        return run(arguments.smoke, root / "home", root / "files")
    with tempfile.TemporaryDirectory(prefix="bench-own-collection-") as folder:
        return run(arguments.smoke, Path(folder) / "home", Path(folder) / "files")


if __name__ == "__main__":
    sys.exit(main())

"""A small collection where one configuration is truly better, with the real embedding model.

Ten Markdown handbooks of made-up pump parts, five in English and five in Chinese, each with
twelve sections (120 parts). Every section reads alike (a part, a pump series, the same advice);
its part number (48210000, 48210037, ...) says which part it is, and the numbers look alike. A
question names a part number, and its answer is the section's sentence that names it: a span
judgement (a quote). 55 are asked (7 per English handbook, 4 per Chinese one). BM25 weighs the
exact number and finds its section; the English-only MiniLM model's word pieces barely tell the
numbers apart, so in the default hybrid ranking the dense route lifts look-alike sections above
the right one (Chinese queries are BM25's alone: the language guard). Measured with 300-character
chunks: span nDCG@10 hybrid 0.6387 (English 0.432, Chinese 1.0), BM25 1.0000, over the 55.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

#: handbooks (even: English, odd: Chinese), sections in each, and the sections asked about in each
HANDBOOKS = 10
SECTIONS = 12
ASKED_EN, ASKED_ZH = 7, 4
PARTS_EN = ("intake valve", "pressure sensor", "drive belt", "cooling fan", "seal ring", "flow meter", "relay")
SERIES_EN = ("Atlas", "Borea", "Corvid", "Delta")
PARTS_ZH = ("进水阀", "压力传感器", "传动皮带", "散热风扇", "密封圈", "流量计", "继电器")
SERIES_ZH = ("阿特拉斯", "北风", "渡鸦", "德尔塔")


def part_number(number: int) -> str:
    """Look-alike part numbers (48210000, 48210037, ...): the model's word pieces barely tell them apart."""
    return str(48210000 + 37 * number)


def _section(number: int, chinese: bool) -> tuple[str, str, str]:
    """(Markdown, the sentence that answers, the question) of part ``number``."""
    rng = random.Random(1000 + number)
    part = part_number(number)
    months = rng.choice((3, 6, 9, 12, 18))
    if chinese:
        answer = f"零件号 {part} 是{rng.choice(SERIES_ZH)}系列水泵的{rng.choice(PARTS_ZH)}。"
        text = f"## 零件 {part}\n\n{answer}建议每 {months} 个月检查一次，磨损时整体更换，不要单独维修。\n"
        return text, answer, f"零件号 {part} 是什么零件？"
    answer = f"Part number {part} is the {rng.choice(PARTS_EN)} of the {rng.choice(SERIES_EN)} series pump."
    text = (
        f"## Part {part}\n\n{answer} Inspect it every {months} months and replace it as a whole when it shows "
        "wear; do not repair it on site.\n"
    )
    return text, answer, f"Which part has the number {part}?"


def write(folder: Path) -> tuple[list[Path], list[dict]]:
    """The handbooks in ``folder`` and the golden set's lines (one question per part asked about)."""
    folder.mkdir(parents=True, exist_ok=True)
    files, lines = [], []
    for book in range(HANDBOOKS):
        chinese = book % 2 == 1
        volume = book // 2 + 1
        name = f"parts-{'zh' if chinese else 'en'}-{volume}.md"
        title = f"# 水泵零件手册 第 {volume} 册\n\n" if chinese else f"# Pump parts handbook, volume {volume}\n\n"
        sections = []
        for within in range(SECTIONS):
            number = book * SECTIONS + within
            text, answer, question = _section(number, chinese)
            sections.append(text)
            if within < (ASKED_ZH if chinese else ASKED_EN):
                lines.append({"id": f"p{number:03d}", "query": question, "relevant": [{"doc": name, "quote": answer}]})
        path = folder / name
        path.write_text(title + "\n".join(sections), encoding="utf-8")
        files.append(path)
    return files, lines


def write_golden(path: Path, lines: list[dict]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines), encoding="utf-8")

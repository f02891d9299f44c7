# ruff: noqa: E501 (the documents are prose, a paragraph a line, as Markdown writes them)
"""The held-out PDF set of issue 49: PDFs from several producers, each with a reference Markdown.

    python bench/make_pdf_heldout.py [--out bench/pdf_heldout]

Writes ``NAME.pdf`` and ``NAME.md`` (the reference) for every document below, and
``index.tsv`` (name, category, producer, pages). The PDFs are kept in the repository, so the bench
reads the same bytes on every machine; this script says how they were made, and makes them again.

The references are written by hand from the sources: what a careful reader would type from the
page, in Markdown, with tables that span rows or columns as HTML ``<table>`` (Markdown's pipe
tables cannot span), super- and subscripts as ``<sup>``/``<sub>`` (their text counts, the tags do
not), a stacked fraction as ``1/4``, a table of contents' dot leaders left out, and a checkbox as
the character it is drawn with (☐ or ☑). Running headers, footers and page numbers are not text.

Producers: Chromium's print-to-PDF (``/usr/bin/chromium`` through Playwright; it shapes Arabic,
Persian and Hebrew and sets CJK with Debian's fonts-dejavu-core and fonts-wqy-microhei), reportlab,
matplotlib's PDF backend, and a scanned page (a Chromium page rasterised by pypdfium2 at 150 dpi,
turned a little and saved as an image-only PDF by Pillow). Long documents are this project's own
docs and a Chinese design document from ``shared/seeds`` set as a reader would print them.
"""

from __future__ import annotations

import argparse
import io
import re
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
OUT = REPO / "bench" / "pdf_heldout"


@dataclass(frozen=True)
class Source:
    """One document: its reference Markdown, and how it is printed."""

    name: str
    category: str
    producer: str  # chromium, reportlab, matplotlib or scan
    reference: str
    html: str = ""  # the page's body; "" for the reference through python-markdown
    css: str = ""
    lang: str = "en"
    rtl: bool = False
    paper: str = "A4"
    extra: dict[str, str] = field(default_factory=dict)


BASE_CSS = """
body { font-family: 'Liberation Serif', 'DejaVu Sans', 'WenQuanYi Micro Hei'; font-size: 11pt; line-height: 1.4; }
h1 { font-size: 19pt; } h2 { font-size: 14.5pt; } h3 { font-size: 12pt; }
table { border-collapse: collapse; margin: 0.5em 0 1em 0; }
th, td { padding: 2pt 8pt; text-align: left; vertical-align: top; }
table.ruled th, table.ruled td { border: 0.75pt solid #222; }
pre { font-family: 'Liberation Mono'; font-size: 9pt; }
"""

# --- tables ---------------------------------------------------------------------------------------

RULED = """# Quarterly Service Report

The tables below summarise the service levels the support desk reached in the third quarter. Figures are taken from the ticketing system on the first working day after the quarter closed.

| Region | Tickets | Resolved | Median hours | Satisfaction |
| --- | --- | --- | --- | --- |
| North | 1,284 | 1,201 | 6.5 | 92% |
| South | 946 | 902 | 5.1 | 94% |
| East | 1,530 | 1,377 | 8.2 | 88% |
| West | 712 | 690 | 4.7 | 95% |
| Total | 4,472 | 4,170 | 6.3 | 91% |

Resolution rates rose in every region except the East, where a migration of the billing system doubled the number of account questions for three weeks in August.

## Staffing

| Team | Full time | Part time | Vacancies |
| --- | --- | --- | --- |
| Tier 1 | 24 | 6 | 2 |
| Tier 2 | 11 | 1 | 1 |
| Escalations | 5 | 0 | 0 |

Two vacancies in the first tier were filled in October and are not yet reflected above.
"""

BORDERLESS = """# Reagent Inventory

Stock levels were counted on 14 March by two technicians working independently; where their counts differed, the lower count is recorded.

| Reagent | Lot | Quantity | Unit | Expires |
| --- | --- | --- | --- | --- |
| Sodium chloride | NC-2291 | 12 | kg | 2027-05 |
| Potassium phosphate | KP-0413 | 3.5 | kg | 2026-11 |
| Tris base | TB-7720 | 800 | g | 2026-08 |
| Ethanol, absolute | EA-1138 | 20 | L | 2028-01 |
| Agarose | AG-5510 | 250 | g | 2026-09 |
| Glycerol | GL-3307 | 4 | L | 2027-12 |

Items expiring within six months are reordered only on request from a group leader. Ethanol is stored in the flammables cabinet on the ground floor and is not counted against the laboratory's own allowance.
"""

BORDERLESS_CSS = "table th { border-bottom: 0.75pt solid #222; } td, th { padding: 2pt 14pt 2pt 0; }"

SPANS_REFERENCE = """# Course Timetable, Spring Term

Lectures take place in the main building; laboratory sessions are held in the annex and last the whole afternoon.

<table>
<tr><th>Day</th><th>Time</th><th>Course</th><th>Room</th></tr>
<tr><td rowspan="2">Monday</td><td>09:00</td><td>Linear Algebra</td><td>A101</td></tr>
<tr><td>11:00</td><td>Probability</td><td>A104</td></tr>
<tr><td rowspan="2">Tuesday</td><td>09:00</td><td>Numerical Methods</td><td>B210</td></tr>
<tr><td>14:00</td><td colspan="2">Laboratory (annex, whole afternoon)</td></tr>
<tr><td>Wednesday</td><td colspan="3">No lectures: reading day</td></tr>
<tr><td rowspan="3">Thursday</td><td>09:00</td><td>Linear Algebra</td><td>A101</td></tr>
<tr><td>11:00</td><td>Statistics</td><td>A104</td></tr>
<tr><td>15:00</td><td>Seminar</td><td>C002</td></tr>
</table>

Changes to the timetable are announced on the department's notice board at least one week ahead.
"""

CHECKBOX_REFERENCE = """# Site Safety Inspection Checklist

Inspector: R. Okafor. Site: Warehouse 3, Dock Road. Date: 9 June.

| Item | Compliant | Not compliant | Not applicable |
| --- | --- | --- | --- |
| Fire exits unobstructed | ☑ | ☐ | ☐ |
| Extinguishers inspected within 12 months | ☑ | ☐ | ☐ |
| Emergency lighting tested | ☐ | ☑ | ☐ |
| First-aid kit stocked | ☑ | ☐ | ☐ |
| Forklift operators certified | ☐ | ☐ | ☑ |
| Racking load signs displayed | ☐ | ☑ | ☐ |

Items marked not compliant must be corrected within fourteen days and inspected again.
"""

FORM_REFERENCE = """# Application for a Parking Permit

Please complete every section in block capitals and return the form to the facilities office.

## 1. Applicant

Full name: Maria Lindqvist

Staff number: 40-7715

Department: Chemistry

## 2. Vehicle

Registration: KX19 ABF

Make and model: Toyota Yaris

Fuel: ☐ Petrol ☐ Diesel ☑ Hybrid ☐ Electric

## 3. Permit type

☑ Annual ☐ Termly ☐ Daily

## 4. Declaration

I confirm that the information given is correct and that I have read the parking regulations.

Signature: M. Lindqvist Date: 2 September
"""

FORM_HTML = """<h1>Application for a Parking Permit</h1>
<p>Please complete every section in block capitals and return the form to the facilities office.</p>
<style>.f{display:flex;gap:8pt;margin:6pt 0}.f span.l{width:120pt}.f span.v{flex:1;border-bottom:0.6pt solid #000;font-family:'Liberation Mono'}</style>
<h2>1. Applicant</h2>
<div class="f"><span class="l">Full name:</span><span class="v">Maria Lindqvist</span></div>
<div class="f"><span class="l">Staff number:</span><span class="v">40-7715</span></div>
<div class="f"><span class="l">Department:</span><span class="v">Chemistry</span></div>
<h2>2. Vehicle</h2>
<div class="f"><span class="l">Registration:</span><span class="v">KX19 ABF</span></div>
<div class="f"><span class="l">Make and model:</span><span class="v">Toyota Yaris</span></div>
<p>Fuel: ☐ Petrol &nbsp; ☐ Diesel &nbsp; ☑ Hybrid &nbsp; ☐ Electric</p>
<h2>3. Permit type</h2>
<p>☑ Annual &nbsp; ☐ Termly &nbsp; ☐ Daily</p>
<h2>4. Declaration</h2>
<p>I confirm that the information given is correct and that I have read the parking regulations.</p>
<div class="f"><span class="l">Signature:</span><span class="v">M. Lindqvist</span><span class="l">Date:</span><span class="v">2 September</span></div>
"""

# --- headings, lists, columns, contents ---------------------------------------------------------

ITALIC_HEADINGS = """# Field Notes on Coastal Erosion

These notes record the survey of the northern shoreline carried out over four days in late April. The team walked the cliff line at low tide and measured the distance from fixed markers to the cliff edge.

## Method

Each marker was located with a handheld receiver and photographed from the seaward side. Distances were taken with a tape along a bearing fixed in the first survey, so that readings from different years can be compared directly.

## Observations

### The northern headland

The headland has lost between one and two metres since the last survey. The largest loss is at marker N4, where a slab of boulder clay fell onto the beach during the winter storms.

### The bay

In the bay the cliff is protected by a shingle ridge, and the markers show no measurable change. The ridge itself has moved landward by roughly half a metre.

## Conclusions

Erosion is concentrated where the cliff faces the prevailing wind and has no beach in front of it. We recommend that the markers at the headland be surveyed twice a year from now on.

## Further work

A drone survey would give a continuous profile of the cliff face between the markers, and would show falls that happen between visits.
"""

ITALIC_CSS = "h2 { font-size: 11pt; font-style: italic; font-weight: normal; margin: 1em 0 0.3em 0; } h3 { font-size: 11pt; font-weight: bold; margin: 0.8em 0 0.2em 0; }"

LISTS = """# Release Checklist

Follow these steps in order for every release. Do not skip a step because the previous release went smoothly.

1. Freeze the main branch and announce the freeze in the team channel.
2. Run the full test suite on a clean machine.
3. Update the changelog:
   - list every user-visible change;
   - credit outside contributors by name;
   - link each entry to its issue.
4. Build the packages:
   1. the source archive;
   2. the wheel for each supported platform;
   3. the documentation site.
5. Tag the release and push the tag.

After the release:

- Lift the freeze.
- Watch the error reports for forty-eight hours.
  - Roll back if the error rate doubles.
  - Otherwise close the release issue.
- Write a short retrospective.
"""

TWO_COLUMN = """# Urban Beekeeping: A Short Survey

## Abstract

Beekeeping in cities has grown steadily over the past decade. We surveyed 212 keepers in three cities about their hives, their losses over winter and the forage available within two kilometres of their apiaries.

## Introduction

Honey bees forage over a wide area, and a city offers a surprising variety of flowers through most of the year: street trees, parks, gardens and the verges of railway lines. Keepers in cities often report heavier crops than their rural colleagues, but also more disease, and the density of hives in some neighbourhoods has raised concern about competition with wild pollinators.

Little systematic information exists about who keeps bees in cities and how their colonies fare. This survey set out to collect it.

## Methods

Keepers were contacted through local associations and asked to complete a questionnaire of twenty-four questions. The questionnaire covered the number of colonies, their location (roof, garden or allotment), their management and their losses over the previous winter. Forage was estimated from land-use maps for a radius of two kilometres around each apiary.

## Results

Winter losses averaged 18 percent, close to the national figure. Losses were higher on roofs than in gardens, which we attribute to exposure to wind. Keepers with more than five colonies lost a smaller share of them than keepers with one or two, perhaps because experience and the number of colonies go together.

Forage was rarely the limiting factor. Even in the densest districts, the area of flowering trees and gardens within reach of an apiary exceeded what the hives could use in all but the driest summer months.

## Discussion

Our sample was drawn from association members and so over-represents experienced keepers. The true level of winter losses among all urban keepers may be higher. Future surveys should also recruit keepers outside the associations, for instance through the registers that some cities keep.

## Conclusion

Urban beekeeping is sustainable at current densities, but keepers on roofs should shelter their hives from the wind.
"""

TWO_COLUMN_CSS = ".cols { columns: 2; column-gap: 20pt; text-align: justify; } h1 { text-align: center; }"

TOC_REFERENCE = """# Contents

1 Introduction 1

1.1 Purpose of this manual 1

1.2 Who should read it 2

2 Installation 3

2.1 Requirements 3

2.2 Installing on Linux 4

2.3 Installing on Windows 6

3 Configuration 8

3.1 The settings file 8

3.2 Environment variables 11

4 Troubleshooting 13

Index 17
"""


def _toc_html() -> str:
    rows = []
    for line in TOC_REFERENCE.strip().split("\n\n")[1:]:
        *words, page = line.split()
        indent = 18 if "." in words[0] else 0
        rows.append(
            f'<div class="t" style="margin-left:{indent}pt"><span>{" ".join(words)}</span><span class="dots"></span><span>{page}</span></div>'
        )
    return "<h1>Contents</h1>" + "".join(rows)


TOC_CSS = (
    ".t { display: flex; align-items: baseline; margin: 5pt 0; } "
    ".t .dots { flex: 1; overflow: hidden; white-space: nowrap; margin: 0 4pt; } "
    ".t .dots::after { content: '. . . . . . . . . . . . . . . . . . . . . . . . . . . . . . . . . . . . . . . . . . . . . . . . . . . . . . . . . . . . . . . . . . . . . . . . . . . . .'; }"
)

# --- right to left, Korean, Japanese --------------------------------------------------------------

ARABIC = """# تحسين الإنتاجية وحل المشكلات

يواجه فريق العمل في كل مشروع مشكلات متكررة تستهلك الوقت والجهد. يعرض هذا الدليل طريقة بسيطة لتحديد هذه المشكلات وترتيبها حسب أثرها ثم معالجتها واحدة بعد الأخرى.

## الخطوة الأولى: جمع البيانات

نبدأ بتسجيل كل مشكلة يواجهها الفريق خلال أسبوعين، مع وصف قصير للمشكلة والوقت الذي ضاع بسببها. لا نحكم على المشكلات في هذه المرحلة، بل نكتفي بتسجيلها بدقة.

## الخطوة الثانية: الترتيب حسب الأثر

بعد جمع البيانات نحسب مجموع الوقت الضائع لكل نوع من المشكلات، ونرتب الأنواع من الأكبر أثرا إلى الأصغر. غالبا ما تكون ثلاث مشكلات أو أربع مسؤولة عن معظم الوقت الضائع.

## الخطوة الثالثة: المعالجة

نختار المشكلة الأولى في القائمة ونبحث عن سببها الجذري، ثم نجرب حلا واحدا ونقيس أثره لمدة أسبوع. إذا نجح الحل نعتمده وننتقل إلى المشكلة التالية.

| المشكلة | الوقت الضائع (ساعات) | الحل المقترح |
| --- | --- | --- |
| اجتماعات طويلة | 12 | جدول أعمال مكتوب |
| انتظار الموافقات | 9 | تفويض الصلاحيات |
| أعطال الأجهزة | 5 | صيانة دورية |
"""

PERSIAN = """# راهنمای استفاده از کتابخانه

کتابخانهٔ دانشکده از ساعت هشت صبح تا هشت شب باز است. دانشجویان می‌توانند با کارت دانشجویی خود تا پنج کتاب را به مدت دو هفته امانت بگیرند.

## تمدید امانت

اگر کتابی را کس دیگری رزرو نکرده باشد، می‌توانید مدت امانت را یک بار از طریق سامانهٔ برخط تمدید کنید. برای تمدید دوم باید کتاب را به میز امانت بیاورید.

## جریمهٔ دیرکرد

برای هر روز تأخیر در بازگرداندن کتاب، مبلغی به عنوان جریمه از حساب دانشجو کسر می‌شود. تا زمانی که جریمه پرداخت نشده باشد، امکان امانت گرفتن کتاب جدید وجود ندارد.

## سالن مطالعه

سالن مطالعه در طبقهٔ دوم قرار دارد و صد و بیست صندلی دارد. لطفاً در سالن مطالعه تلفن همراه خود را خاموش کنید و با صدای آهسته صحبت کنید.
"""

HEBREW = """# הוראות הפעלה למדיח הכלים

לפני השימוש הראשון יש לקרוא את ההוראות עד הסוף ולשמור אותן לעיון בעתיד.

## הכנסת הכלים

יש להניח את הצלחות בסל התחתון כשהן פונות למרכז, ואת הכוסות בסל העליון כשפיהן כלפי מטה. אין להכניס למדיח כלי עץ או סכינים חדים במיוחד.

## בחירת תוכנית

| תוכנית | טמפרטורה | משך |
| --- | --- | --- |
| אינטנסיבית | 70 מעלות | שעתיים |
| רגילה | 55 מעלות | שעה וחצי |
| חסכונית | 45 מעלות | שלוש שעות |
| מהירה | 40 מעלות | שלושים דקות |

## ניקוי המסנן

יש לנקות את המסנן שבתחתית המדיח פעם בשבוע. מסובבים את המסנן נגד כיוון השעון, מוציאים אותו ושוטפים אותו במים זורמים.
"""

KOREAN = """# 2025년 감염병 관리 연차 보고서

## 1. 개요

본 보고서는 2025년 한 해 동안 지역 보건소가 수행한 감염병 감시와 대응 활동을 정리한 것이다. 신고된 환자 수, 역학 조사 결과, 예방 접종 실적을 차례로 제시하고, 내년도 개선 과제를 제안한다.

## 2. 감염병 분류

| 분류 | 특성 | 신고 시기 | 예시 |
| --- | --- | --- | --- |
| 제1급 | 생물테러 또는 치명률이 높은 감염병 | 즉시 | 에볼라바이러스병 |
| 제2급 | 전파 가능성을 고려하여 격리가 필요한 감염병 | 24시간 이내 | 결핵, 수두 |
| 제3급 | 발생을 계속 감시할 필요가 있는 감염병 | 24시간 이내 | 말라리아 |
| 제4급 | 유행 여부를 조사하기 위해 표본감시가 필요한 감염병 | 7일 이내 | 인플루엔자 |

## 3. 주요 결과

올해 신고된 제2급 감염병 환자는 모두 1,284명으로 지난해보다 12% 감소하였다. 특히 수두 환자가 크게 줄었는데, 이는 초등학교 입학 전 예방 접종 확인 사업의 효과로 보인다.

결핵 환자는 312명으로 지난해와 비슷한 수준이었다. 고령 환자의 비율이 계속 높아지고 있어 노인 요양 시설을 중심으로 한 검진 확대가 필요하다.

## 4. 개선 과제

1. 요양 시설 입소자에 대한 연 1회 결핵 검진을 의무화한다.
2. 신고 시스템의 입력 항목을 줄여 의료 기관의 부담을 덜어 준다.
3. 역학 조사 인력을 두 명 늘려 주말 대응 체계를 갖춘다.
"""

JAPANESE = """# 社内ネットワーク利用規程

## 第1章 総則

この規程は、社員が社内ネットワークおよびインターネットを業務で利用する際に守るべき事項を定めるものである。すべての社員、契約社員および派遣社員に適用する。

## 第2章 利用の原則

社内ネットワークは業務のために利用するものとし、私的な利用は休憩時間中の必要最小限にとどめる。業務に関係のないソフトウェアを会社の端末にインストールしてはならない。

## 第3章 禁止事項

次の行為を禁止する。

- 他人の利用者IDやパスワードを使用すること
- 機密情報を許可なく社外に送信すること
- 著作権を侵害するファイルをダウンロードすること

## 第4章 違反時の措置

この規程に違反した場合、情報システム部は当該社員のネットワーク利用を一時的に停止することができる。重大な違反については、就業規則に基づき懲戒処分の対象とする。
"""

# --- mathematics ----------------------------------------------------------------------------------

MATH_REFERENCE = """# Notes on Units and Formulas

## Sheet thickness

Cut the panel from sheet of up to 1/4 inch, and allow 3/8 inch between the edge and the first fixing. For thicker sheet, use the 1/2 inch bit.

## Formulas

The kinetic energy of a body of mass m moving at speed v is E = mv<sup>2</sup>/2, and the area of a circle of radius r is πr<sup>2</sup>.

Water is H<sub>2</sub>O; the reaction 2H<sub>2</sub> + O<sub>2</sub> → 2H<sub>2</sub>O releases about 286 kJ per mole of water formed.

The speed of light is about 3 × 10<sup>8</sup> m/s, and a year is about 3.15 × 10<sup>7</sup> s.

## Notation

We write x<sub>i</sub> for the i-th observation and x̄ for the mean of n observations; the variance is s<sup>2</sup> = Σ(x<sub>i</sub> − x̄)<sup>2</sup>/(n − 1).
"""


def _frac(numerator: str, denominator: str) -> str:
    return (
        '<span style="display:inline-block;vertical-align:middle;text-align:center;font-size:0.8em;line-height:1.05">'
        f'<span style="display:block;border-bottom:0.6pt solid #000;padding:0 1pt">{numerator}</span>'
        f'<span style="display:block;padding:0 1pt">{denominator}</span></span>'
    )


MATH_HTML = f"""<h1>Notes on Units and Formulas</h1>
<h2>Sheet thickness</h2>
<p>Cut the panel from sheet of up to {_frac("1", "4")} inch, and allow {_frac("3", "8")} inch between the edge and the first fixing. For thicker sheet, use the {_frac("1", "2")} inch bit.</p>
<h2>Formulas</h2>
<p>The kinetic energy of a body of mass m moving at speed v is E = mv<sup>2</sup>/2, and the area of a circle of radius r is πr<sup>2</sup>.</p>
<p>Water is H<sub>2</sub>O; the reaction 2H<sub>2</sub> + O<sub>2</sub> → 2H<sub>2</sub>O releases about 286 kJ per mole of water formed.</p>
<p>The speed of light is about 3 × 10<sup>8</sup> m/s, and a year is about 3.15 × 10<sup>7</sup> s.</p>
<h2>Notation</h2>
<p>We write x<sub>i</sub> for the i-th observation and x̄ for the mean of n observations; the variance is s<sup>2</sup> = Σ(x<sub>i</sub> − x̄)<sup>2</sup>/(n − 1).</p>
"""


_LIST_LINE = re.compile(r"^\s*(?:[-*+]|\d{1,3}[.)])\s")


def markdown_html(reference: str) -> str:
    """The reference as HTML. CommonMark lets a list or a table interrupt a paragraph;
    python-markdown wants a blank line first, so one is put there (the Markdown means the same)."""
    import markdown

    lines: list[str] = []
    fenced = False
    for line in reference.split("\n"):
        if line.startswith(("```", "~~~")):
            fenced = not fenced
        previous = lines[-1] if lines else ""
        starts = (
            _LIST_LINE.match(line)
            and not _LIST_LINE.match(previous)
            or line.startswith("|")
            and not previous.startswith("|")
        )
        if not fenced and starts and previous.strip() and not previous.startswith(("```", "#")):
            lines.append("")
        lines.append(line)
    return str(markdown.markdown("\n".join(lines), extensions=["tables", "fenced_code", "sane_lists"]))


def _long_reference(path: Path, keep: int) -> str:
    """The first ``keep`` lines of a Markdown file, cut at a blank line, without links' targets
    and inline HTML comments: what a reader would type from its printed pages."""
    lines = path.read_text(encoding="utf-8").split("\n")[:keep]
    while lines and lines[-1].strip():
        lines.pop()
    text = "\n".join(lines)
    text = re.sub(r"<!--.*?-->", "", text, flags=re.S)
    return re.sub(r"\n{3,}", "\n\n", text).strip() + "\n"


def sources() -> list[Source]:
    seeds = REPO.parent / "shared" / "seeds"
    chinese = _long_reference(seeds / "004_d6a0793678f910d5.txt", 10_000) if seeds.is_dir() else ""
    gateway = _long_reference(seeds / "003_f8414a07b02f876e.txt", 10_000) if seeds.is_dir() else ""
    manual_css = "body { font-family: 'Liberation Sans'; font-size: 10pt; } th, td { border: 0.5pt solid #888; } code { font-family: 'Liberation Mono'; }"
    documents = [
        Source("en-ruled-table", "tables", "chromium", RULED, css="table { } th, td { border: 0.75pt solid #222; }"),
        Source("en-borderless-table", "tables", "chromium", BORDERLESS, css=BORDERLESS_CSS),
        Source("en-spans-table", "tables", "chromium", SPANS_REFERENCE, css="th, td { border: 0.75pt solid #222; }"),
        Source(
            "en-checkbox-table",
            "tables",
            "chromium",
            CHECKBOX_REFERENCE,
            css="th, td { border: 0.75pt solid #222; } td { text-align: center; } td:first-child { text-align: left; }",
        ),
        Source("en-form", "forms", "chromium", FORM_REFERENCE, html=FORM_HTML),
        Source("en-italic-headings", "headings", "chromium", ITALIC_HEADINGS, css=ITALIC_CSS, paper="Letter"),
        Source("en-lists", "lists", "chromium", LISTS),
        Source("en-two-column", "columns", "chromium", TWO_COLUMN, css=TWO_COLUMN_CSS),
        Source("en-contents", "contents", "chromium", TOC_REFERENCE, html=_toc_html(), css=TOC_CSS),
        Source(
            "ar-guide",
            "rtl",
            "chromium",
            ARABIC,
            lang="ar",
            rtl=True,
            css="body { font-family: 'DejaVu Sans'; font-size: 11pt; } th, td { border: 0.75pt solid #222; text-align: right; }",
        ),
        Source(
            "fa-library",
            "rtl",
            "chromium",
            PERSIAN,
            lang="fa",
            rtl=True,
            css="body { font-family: 'DejaVu Sans'; font-size: 11pt; }",
        ),
        Source(
            "he-dishwasher",
            "rtl",
            "chromium",
            HEBREW,
            lang="he",
            rtl=True,
            css="body { font-family: 'DejaVu Sans'; font-size: 11pt; } th, td { border: 0.75pt solid #222; text-align: right; }",
        ),
        Source(
            "ko-report",
            "cjk",
            "chromium",
            KOREAN,
            lang="ko",
            css="body { font-family: 'WenQuanYi Micro Hei'; font-size: 10.5pt; } th, td { border: 0.75pt solid #222; }",
        ),
        Source(
            "ja-rules",
            "cjk",
            "chromium",
            JAPANESE,
            lang="ja",
            css="body { font-family: 'WenQuanYi Micro Hei'; font-size: 10.5pt; }",
        ),
        Source("en-math", "math", "chromium", MATH_REFERENCE, html=MATH_HTML),
        Source("en-manual", "long", "chromium", _long_reference(REPO / "docs" / "pdf.md", 140), css=manual_css),
        Source(
            "en-how-it-works",
            "long",
            "chromium",
            _long_reference(REPO / "docs" / "how-it-works.md", 220),
            css=manual_css.replace("Liberation Sans", "Liberation Serif"),
            paper="Letter",
        ),
        Source("en-report-reportlab", "tables", "reportlab", ""),
        Source("en-poster-matplotlib", "headings", "matplotlib", ""),
        Source("en-scan", "scan", "scan", RULED),
    ]
    if chinese:
        documents.append(
            Source(
                "zh-design",
                "long",
                "chromium",
                chinese,
                lang="zh",
                css="body { font-family: 'WenQuanYi Micro Hei'; font-size: 10.5pt; line-height: 1.6; }",
            )
        )
        documents.append(
            Source(
                "zh-gateway",
                "long",
                "chromium",
                gateway,
                lang="zh",
                css="body { font-family: 'WenQuanYi Micro Hei'; font-size: 10pt; line-height: 1.5; } pre { font-size: 8.5pt; } th, td { border: 0.5pt solid #888; }",
            )
        )
    return documents


# --- producers ------------------------------------------------------------------------------------


def _page_html(source: Source) -> str:
    body = source.html or markdown_html(source.reference)
    if source.name == "en-two-column":
        title, rest = body.split("</h1>", 1)
        body = f'{title}</h1><div class="cols">{rest}</div>'
    direction = ' dir="rtl"' if source.rtl else ""
    return (
        f'<!doctype html><html lang="{source.lang}"{direction}><head><meta charset="utf-8">'
        f"<style>{BASE_CSS}{source.css}</style></head><body>{body}</body></html>"
    )


def print_chromium(jobs: list[tuple[Source, Path]]) -> None:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path="/usr/bin/chromium", args=["--no-sandbox", "--disable-gpu"]
        )
        try:
            page = browser.new_page()
            for source, path in jobs:
                page.set_content(_page_html(source), wait_until="load")
                page.evaluate("document.fonts.ready")
                margin = "20mm"
                page.pdf(
                    path=str(path), format=source.paper, print_background=True,
                    margin={"top": margin, "right": margin, "bottom": margin, "left": margin},
                )  # fmt: skip
        finally:
            browser.close()


REPORTLAB_REFERENCE = """# Annual Maintenance Budget

This statement sets out the maintenance budget of the estates department for the coming financial year, by building and by kind of work. All figures are in thousands of pounds.

## Budget by building

<table>
<tr><th rowspan="2">Building</th><th colspan="2">Planned work</th><th rowspan="2">Reactive repairs</th></tr>
<tr><th>Fabric</th><th>Services</th></tr>
<tr><td>Library</td><td>120</td><td>85</td><td>40</td></tr>
<tr><td>Science block</td><td>210</td><td>340</td><td>95</td></tr>
<tr><td>Sports hall</td><td>60</td><td>45</td><td>30</td></tr>
<tr><td>Total</td><td>390</td><td>470</td><td>165</td></tr>
</table>

The science block's services budget is high because the fume cupboards on the second floor reach the end of their working life this year and must be replaced.

## Priorities

1. Roof repairs to the library before the autumn rains.
2. Replacement of the fume cupboards in the science block.
3. Resurfacing of the sports hall floor.

Work not started by the end of the third quarter will be carried over to the following year's budget.
"""


def print_reportlab(path: Path) -> None:
    from reportlab.lib import colors
    from reportlab.lib.pagesizes import A4
    from reportlab.lib.styles import getSampleStyleSheet
    from reportlab.platypus import ListFlowable, ListItem, Paragraph, SimpleDocTemplate, Spacer, Table, TableStyle

    styles = getSampleStyleSheet()
    body, h1, h2 = styles["BodyText"], styles["Heading1"], styles["Heading2"]
    paragraphs = REPORTLAB_REFERENCE.split("\n\n")
    table = Table(
        [["Building", "Planned work", "", "Reactive repairs"], ["", "Fabric", "Services", ""],
         ["Library", "120", "85", "40"], ["Science block", "210", "340", "95"],
         ["Sports hall", "60", "45", "30"], ["Total", "390", "470", "165"]],
        style=TableStyle([("GRID", (0, 0), (-1, -1), 0.5, colors.black), ("SPAN", (0, 0), (0, 1)),
                          ("SPAN", (1, 0), (2, 0)), ("SPAN", (3, 0), (3, 1)),
                          ("FONTNAME", (0, 0), (-1, 1), "Helvetica-Bold")]),
    )  # fmt: skip
    items = ListFlowable(
        [ListItem(Paragraph(line.split(". ", 1)[1], body)) for line in paragraphs[6].split("\n")], bulletType="1"
    )
    story = [
        Paragraph(paragraphs[0][2:], h1), Paragraph(paragraphs[1], body), Paragraph(paragraphs[2][3:], h2),
        table, Spacer(1, 8), Paragraph(paragraphs[4], body), Paragraph(paragraphs[5][3:], h2), items,
        Paragraph(paragraphs[7].strip(), body),
    ]  # fmt: skip
    SimpleDocTemplate(str(path), pagesize=A4).build(story)


MATPLOTLIB_REFERENCE = """# Rainfall at the Valley Station

Monthly rainfall in millimetres, January to June.

## Readings

January was the wettest month on record at the station, with 212 mm.

## Caveats

The gauge was replaced in March; readings before and after may differ by a few percent.
"""


def print_matplotlib(path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure = plt.figure(figsize=(8.27, 11.69))
    figure.text(0.1, 0.93, "Rainfall at the Valley Station", fontsize=20, weight="bold")
    figure.text(0.1, 0.895, "Monthly rainfall in millimetres, January to June.", fontsize=11)
    axes = figure.add_axes((0.12, 0.5, 0.76, 0.35))
    axes.bar(["Jan", "Feb", "Mar", "Apr", "May", "Jun"], [212, 140, 98, 75, 60, 41], color="#4a7")
    axes.set_xticks([])
    axes.set_yticks([])
    figure.text(0.1, 0.43, "Readings", fontsize=14, weight="bold")
    figure.text(0.1, 0.40, "January was the wettest month on record at the station, with 212 mm.", fontsize=11)
    figure.text(0.1, 0.35, "Caveats", fontsize=14, weight="bold")
    figure.text(
        0.1,
        0.32,
        "The gauge was replaced in March; readings before and after may differ by a few percent.",
        fontsize=11,
    )
    with matplotlib.rc_context({"pdf.fonttype": 42}):
        figure.savefig(path, format="pdf")
    plt.close(figure)


def print_scan(source_pdf: Path, path: Path) -> None:
    """The first page of ``source_pdf`` as a scanner makes it: 150 dpi greyscale, turned 0.6°."""
    import pypdfium2
    from PIL import Image

    document = pypdfium2.PdfDocument(str(source_pdf))
    image = document[0].render(scale=150 / 72).to_pil().convert("L")
    document.close()
    image = image.rotate(0.6, resample=Image.Resampling.BICUBIC, fillcolor=255, expand=False)
    buffer = io.BytesIO()
    image.save(buffer, format="PDF", resolution=150.0)
    path.write_bytes(buffer.getvalue())


def _pages(path: Path) -> int:
    import pypdfium2

    document = pypdfium2.PdfDocument(str(path))
    count = len(document)
    document.close()
    return count


def write(out: Path, only: Callable[[Source], bool] = lambda source: True) -> None:
    out.mkdir(parents=True, exist_ok=True)
    chosen = [source for source in sources() if only(source)]
    print_chromium([(s, out / f"{s.name}.pdf") for s in chosen if s.producer in ("chromium", "scan")])
    rows = []
    for source in chosen:
        pdf = out / f"{source.name}.pdf"
        reference = source.reference
        if source.producer == "reportlab":
            print_reportlab(pdf)
            reference = REPORTLAB_REFERENCE
        elif source.producer == "matplotlib":
            print_matplotlib(pdf)
            reference = MATPLOTLIB_REFERENCE
        elif source.producer == "scan":
            print_scan(pdf, pdf)
        (out / f"{source.name}.md").write_text(reference, encoding="utf-8")
        rows.append(f"{source.name}\t{source.category}\t{source.producer}\t{_pages(pdf)}")
    (out / "index.tsv").write_text("name\tcategory\tproducer\tpages\n" + "\n".join(rows) + "\n", encoding="utf-8")


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=OUT)
    arguments = parser.parse_args()
    write(arguments.out)
    print((arguments.out / "index.tsv").read_text(encoding="utf-8"), file=sys.stderr)


if __name__ == "__main__":
    main()

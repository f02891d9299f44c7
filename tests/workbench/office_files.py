"""Small real PDF, DOCX, PPTX and XLSX files built on the fly for ingestion tests."""

from __future__ import annotations

from pathlib import Path


def make_pdf(path: Path, pages: list[str]) -> Path:
    from reportlab.lib.pagesizes import A4
    from reportlab.pdfgen import canvas

    pdf = canvas.Canvas(str(path), pagesize=A4)
    for text in pages:
        pdf.drawString(72, 750, text)
        pdf.showPage()
    pdf.save()
    return path


def make_docx(path: Path) -> Path:
    import docx

    document = docx.Document()
    document.add_heading("Wind energy", level=1)
    document.add_paragraph("Turbines turn wind into electricity offshore.")
    document.save(path)
    return path


def make_pptx(path: Path) -> Path:
    import pptx

    deck = pptx.Presentation()
    for title, body in [("Volcanoes", "Lava flows downhill"), ("Earthquakes", "Faults slip suddenly")]:
        slide = deck.slides.add_slide(deck.slide_layouts[1])
        slide.shapes.title.text = title
        slide.placeholders[1].text = body
    deck.save(path)
    return path


def make_xlsx(path: Path) -> Path:
    import openpyxl

    workbook = openpyxl.Workbook()
    sheet = workbook.active
    sheet.append(["Planet", "Moons"])
    sheet.append(["Mars", 2])
    workbook.save(path)
    return path

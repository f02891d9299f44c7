"""Markdown for the collection and navigation tools (the search tools' is in ``citations``)."""

from __future__ import annotations

from workbench.mcp_server.citations import HEADING_SEPARATOR, quote
from workbench.mcp_server.schemas import ChunkEntry, ChunkResult, CollectionList, DocumentSummary, SectionList
from workbench.text import shown_name


def render_collections(result: CollectionList) -> str:
    if not result.collections:
        return "The knowledge base has no collections yet.\n"
    lines = [
        "| collection | documents | chunks | embedding model | default preset | backend |",
        "|---|---:|---:|---|---|---|",
    ]
    for entry in result.collections:
        marker = " (default)" if entry.name == result.default_collection else ""
        lines.append(
            f"| {shown_name(entry.name)}{marker} | {entry.documents} | {entry.chunks} | {entry.embedding_model} "
            f"| {entry.default_preset} | {entry.backend} |"
        )
    if result.default_collection is None:
        lines += ["", "Several collections and no default: pass `collection` to the other tools."]
    return "\n".join(lines) + "\n"


def render_document_summary(summary: DocumentSummary) -> str:
    lines = [
        f"# {shown_name(summary.title)}",
        "",
        f"- source: {shown_name(summary.source)} (doc {summary.doc_id}, collection `{summary.collection}`)",
        f"- type: {summary.doc_type}, {summary.size_bytes} bytes, {summary.chunk_count} chunks",
        f"- ingested: {summary.ingested_at}",
        f"- full text: {summary.resource_uri}",
    ]
    if summary.external_id:
        lines.append(f"- external id: {summary.external_id}")
    if summary.status != "success":
        lines.append(f"- status: {summary.status}: {summary.error}")
    if summary.outline:
        lines += ["", "## Outline"]
        lines += [f"{'  ' * (h.level - 1)}- {h.title}" for h in summary.outline]
    if summary.excerpt:
        lines += ["", "## Opening", *quote(summary.excerpt)]
    return "\n".join(lines) + "\n"


def render_sections(result: SectionList) -> str:
    lines = [f"Sections of {shown_name(result.source)} (doc {result.doc_id}, collection `{result.collection}`):", ""]
    if not result.sections:
        lines.append("(the document has no text)")
    for section in result.sections:
        indent = "  " * max(section.level - 1, 0)
        chunks = ", ".join(str(c) for c in section.chunk_ids) or "none"
        lines.append(f"{indent}- {section.title} — chunks {chunks}")
    return "\n".join(lines) + "\n"


def _chunk_block(entry: ChunkEntry, label: str) -> list[str]:
    where = HEADING_SEPARATOR.join(entry.heading_path) or "(no heading)"
    page = f", p. {entry.page}" if entry.page is not None else ""
    lines = [f"**{label} chunk {entry.chunk_id}** (#{entry.ordinal}, {where}{page})", *quote(entry.text)]
    if entry.enrichment is not None:
        described = [
            f"{name}: {value}"
            for name, value in (
                ("title", entry.enrichment.title),
                ("summary", entry.enrichment.summary),
                ("tags", ", ".join(entry.enrichment.tags)),
            )
            if value
        ]
        lines.append("LLM enrichment: " + "; ".join(described))
    return [*lines, ""]


def render_chunk(result: ChunkResult) -> str:
    lines = [f"From {shown_name(result.source)} (doc {result.doc_id}, collection `{result.collection}`):", ""]
    for entry in result.before:
        lines += _chunk_block(entry, "before:")
    lines += _chunk_block(result.chunk, "requested:")
    for entry in result.after:
        lines += _chunk_block(entry, "after:")
    return "\n".join(lines)

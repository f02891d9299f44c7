"""Documents: create and delete collections, upload files with live progress, and inspect what
ingestion made of each document (canonical Markdown, chunks, failures with their reasons)."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from workbench.chunking.window import LEFT_WHOLE
from workbench.config import EmbeddingConfig, WorkbenchConfig
from workbench.ingestion.ingest import IngestReport, Source
from workbench.ingestion.parsers import SUPPORTED_TYPES
from workbench.ingestion.parsers.image_notes import describe_images, images_in_brief, notes_of, retryable
from workbench.ingestion.upload_limits import UploadLimit, raise_cost
from workbench.language.coverage import models_covering, suggest_models
from workbench.models.availability import ModelNotAvailableError, card_for, locate
from workbench.models.catalogue import EMBEDDING, models
from workbench.service.collection_info import ChunksOverWindow
from workbench.text import count, shown_name
from workbench.ui import session
from workbench.ui.access import hidden_in_read_only, read_only
from workbench.ui.ingest_progress import IngestProgressView
from workbench.ui.llm_panels import enrichment_panel
from workbench.ui.model_choice import model_picker
from workbench.ui.model_downloads import offer_download
from workbench.ui.new_collection import create_and_select
from workbench.ui.runtime_table import runtime_panel
from workbench.ui.text import md_escape, shorten
from workbench.ui.uploads import ingest_uploads
from workbench.ui.widgets import chunking_controls, document_label

#: which tab of a document's detail is open (its label)
DETAIL_TAB_KEY = "documents_detail_tab"

LAST_REPORT_KEY = "documents_last_ingest"
UPLOAD_ROUND_KEY = "documents_upload_round"
CANCEL_KEY = "documents_cancel_ingest"
MAX_FILE_KEY = "documents_max_file_mb"


def collections_panel(collection: str | None) -> None:
    if hidden_in_read_only("Creating and deleting collections"):
        return
    bench = session.workbench()
    with st.expander("New collection", expanded=collection is None, icon=":material/add:"):
        st.caption("How its documents are chunked (you can compare and add other chunkings later in the Chunking lab).")
        chunking = chunking_controls("new_collection_chunking", WorkbenchConfig().chunking)
        model = model_picker(
            "Embedding model",
            EMBEDDING,
            "new_collection_model",
            WorkbenchConfig().embedding.model,
            help="Fixed for the collection. all-MiniLM-L6-v2 reads English only; for Chinese pick "
            f"{chinese_advice()} (a model that is not here yet gets a Download button below the picker; "
            "all models: the Models page).",
        )
        chinese_model_warning(model)
        # The name and its button are one form: a name still being typed reaches the server with the
        # click (Enter submits too), where a bare text box's blur rerun could swallow the click.
        with st.form("new_collection_form", border=False, enter_to_submit=True):
            name = st.text_input(
                "Name", key="new_collection_name", placeholder="e.g. handbook", help="Letters, digits, '-' and '_'."
            )
            if st.form_submit_button("Create collection", key="create_collection", type="primary"):
                create_and_select(name, WorkbenchConfig(chunking=chunking, embedding=EmbeddingConfig(model)))
    if collection is None:
        return
    with st.expander(f"Delete collection “{md_escape(collection)}”", icon=":material/delete:"):
        st.markdown(
            f"Deletes **{md_escape(collection)}**: its documents, chunks and indexes. The embedding "
            "cache is kept, so ingesting the same texts again is quick."
        )
        confirmed = st.checkbox(f"Yes, delete {md_escape(collection)}", key=f"confirm_delete_{collection}")
        if st.button("Delete collection", key="delete_collection", disabled=not confirmed):
            bench.delete_collection(collection)
            session.flash("success", f"Deleted collection **{md_escape(collection)}**.")
            session.request_collection("")
            st.rerun()


def chinese_model_warning(model: str, collection: str | None = None) -> None:
    """Before any upload: the model is fixed for the collection, and one that does not read Chinese
    ranks Chinese documents almost at random (after the upload the warning comes too late to choose
    again without uploading twice). The documents are not known yet, so it says "if".
    ``collection``: an empty collection made with ``model`` (the advice is then a new collection)."""
    card = card_for(model, EMBEDDING) if model else None
    if card is None or not card.languages_known or "zh" in card.languages:
        return
    reads = card.languages_note if card.in_catalogue and card.languages_note else card.describe_languages()
    fix = (
        f"pick {chinese_advice()} above before you create the collection"
        if collection is None
        else f"create a collection with {chinese_advice()} (New collection, above) and upload them there"
    )
    st.warning(
        md_escape(
            f"{card.name} reads {reads} only"
            + (f" (the model of {collection})" if collection else ", and the model is fixed once the collection exists")
            + f". If your documents are Chinese (or mixed), {fix}."
        ),
        icon=":material/translate:",
    )


def chinese_advice() -> str:
    """ "paraphrase-multilingual-MiniLM-L12-v2 (50+ languages, 471 MB) or BAAI/bge-small-zh-v1.5 (Chinese, 96 MB)"."""
    cards = [card for card in models(EMBEDDING) if "zh" in card.languages and not card.bundled][:2]
    return " or ".join(f"{card.name} ({card.languages_note}, {card.download_size})" for card in cards)


def language_panel(collection: str) -> None:
    """The collection's language mix, and a warning when its embedding model does not read it."""
    try:
        language = session.collection_language(collection)
    except ModelNotAvailableError as error:
        st.error(md_escape(error), icon=":material/download:")
        return
    if language.warning:
        st.warning(md_escape(language.warning), icon=":material/translate:")
        covering = models_covering(language.mix, EMBEDDING)
        missing = [card for card in covering if locate(card.name, card.kind) is None]
        if missing:
            st.caption(
                "Download one here, then create a collection with it (New collection, above) and upload "
                "the same files: unchanged texts are parsed again but nothing else is lost."
            )
            for card in missing:
                offer_download(card, key_prefix="language_download")
    else:
        coverage = language.coverage
        st.caption(
            f"Language mix: {md_escape(language.mix.describe())} · embedding model "
            f"{md_escape(coverage.model)} covers {md_escape(coverage.model_languages)}"
        )
        uncovered_documents_warning(collection, language)


#: documents named in the warning before "and N more"
NAMED_DOCUMENTS = 8


def uncovered_documents_warning(collection: str, language) -> None:
    """Each document the model does not cover, though the collection as a whole is covered."""
    if not language.uncovered:
        return
    names = {doc.id: shown_name(doc.source) for doc in session.documents(collection)}
    named = [
        f"{names.get(doc.doc_id, f'document {doc.doc_id}')} ({doc.mix.describe()})"
        for doc in language.uncovered[:NAMED_DOCUMENTS]
    ]
    more = len(language.uncovered) - len(named)
    model = language.coverage.model
    st.warning(
        md_escape(
            f"{count(len(language.uncovered), 'document')} "
            f"{'is' if len(language.uncovered) == 1 else 'are'} in a language {model} does not cover "
            f"(it covers {language.coverage.model_languages}): {', '.join(named)}"
            + (f" and {more} more" if more else "")
            + f". Its dense route ranks {'it' if len(language.uncovered) == 1 else 'them'} almost at random; "
            f"BM25 still finds {'it' if len(language.uncovered) == 1 else 'them'} by its words. For these, a "
            f"collection with a model that covers their language reads them: "
            f"{suggest_models(language.uncovered[0].mix, EMBEDDING) or 'none in the catalogue'}."
        ),
        icon=":material/translate:",
    )


def document_language_warning(collection: str, doc) -> None:
    """The inspected document's own warning, when the collection's model does not cover its language."""
    try:
        language = session.collection_language(collection)
    except ModelNotAvailableError:
        return
    found = next((entry for entry in language.uncovered if entry.doc_id == doc.id), None)
    if found is not None and not language.warning:  # else the collection's own warning says it
        st.warning(
            md_escape(
                f"{shown_name(doc.source)} is in {found.mix.language} ({found.mix.describe()}), which "
                f"{found.coverage.model} does not cover (it covers {found.coverage.model_languages}): its "
                "chunks are found by BM25, and by the dense route almost at random."
            ),
            icon=":material/translate:",
        )


def upload_limit(collection: str) -> float:
    """The largest file ingest takes (``ingest.max_file_mb``), which the user may raise here, with its cost."""
    config = session.workbench().config_for(collection)
    server_mb = int(st.get_option("server.maxUploadSize"))
    chosen = float(st.session_state.get(MAX_FILE_KEY, config.ingest.max_file_mb))
    limit = UploadLimit(chosen, server_mb)
    with st.expander(f"Largest file: {limit.box_mb} MB", icon=":material/straighten:"):
        st.number_input(
            "Largest file (MB), ingest.max_file_mb",
            min_value=1.0,
            max_value=100_000.0,
            value=float(config.ingest.max_file_mb),
            step=10.0,
            key=MAX_FILE_KEY,
            help="Files over this size are refused before they are read. For this session's uploads; "
            "the command line takes --set ingest.max_file_mb=N.",
        )
        rate, measured_for = session.chunk_rate(config.embedding.key) or (None, None)
        lines = raise_cost(chosen, config.chunking, rate, config.ingest.max_chunks, measured_for)
        st.caption("One file at this size costs about: " + "; ".join(md_escape(line) for line in lines))
        st.caption(md_escape(limit.describe()))
    return chosen


def upload_panel(collection: str) -> None:
    if hidden_in_read_only("Uploading documents"):
        return
    upload_round = st.session_state.setdefault(UPLOAD_ROUND_KEY, 0)
    max_file_mb = upload_limit(collection)
    files = st.file_uploader(
        f"Add documents to {md_escape(collection)}",
        type=sorted({ext.lstrip(".") for ext in SUPPORTED_TYPES}),
        accept_multiple_files=True,
        key=f"uploads_{upload_round}",
        max_upload_size=UploadLimit(max_file_mb, int(st.get_option("server.maxUploadSize"))).box_mb,
        help="Unchanged files are skipped before parsing; a changed file replaces its earlier version.",
    )
    if st.session_state.get(CANCEL_KEY):
        st.info(
            "Ingest cancelled. The files committed before the cancel stay searchable; press Ingest again on "
            "the same files to finish (those already in are skipped, nothing is embedded twice).",
            icon=":material/cancel:",
        )
    if not files:
        return
    if st.button(f"Ingest {count(len(files), 'file')}", key="ingest_uploads", type="primary"):
        sources = [Source(name=file.name, data=file.getvalue()) for file in files]
        with st.status(
            f"Ingesting {count(len(sources), 'file')} into “{md_escape(collection)}”", expanded=True
        ) as status:
            # any click reruns the page, which stops this run at its next progress update: the ingest
            # then commits what it finished, marks itself cancelled and brings the indexes in line
            st.button(
                "Cancel",
                key=CANCEL_KEY,
                icon=":material/cancel:",
                help="Stop after the files in flight; everything committed so far stays",
            )
            view = IngestProgressView([source.name for source in sources])
            try:
                report = ingest_uploads(session.workbench(), collection, sources, max_file_mb, progress=view)
            except ModelNotAvailableError as error:  # nothing was written; the message names the download
                status.update(label="Not ingested: the collection's model is not on this machine", state="error")
                st.error(md_escape(error), icon=":material/download:")
                return
            status.update(label=md_escape(report.summary()), state="error" if report.failures else "complete")
        st.session_state[LAST_REPORT_KEY] = report
        st.session_state[UPLOAD_ROUND_KEY] = upload_round + 1  # a fresh, empty uploader
        st.rerun()


def last_report(collection: str) -> None:
    report: IngestReport | None = st.session_state.get(LAST_REPORT_KEY)
    if report is None or report.collection != collection:
        return
    with st.container(border=True):
        st.markdown(f"**Last upload** — {md_escape(report.summary())}")
        st.dataframe(
            pd.DataFrame(
                [
                    {
                        "file": shown_name(o.source),
                        "outcome": o.status,
                        "chunks": o.chunks,
                        "over the window": len(o.over_window),
                        "images": images_in_brief(o.images),
                        "reason": o.reason,
                    }
                    for o in report.outcomes
                ]
            ),
            hide_index=True,
            width="stretch",
        )
        for outcome in report.outcomes:
            if outcome.images:
                st.caption(
                    f"Images in {md_escape(shown_name(outcome.source))}: "
                    + "; ".join(md_escape(line) for line in describe_images(outcome.images))
                )
        if report.window_note():
            st.warning(md_escape(report.window_note()), icon=":material/content_cut:")
        for failure in report.failures:
            st.error(
                f"**{md_escape(shown_name(failure.source))}** was not ingested: {md_escape(failure.reason)}",
                icon=":material/error:",
            )
        if st.button("Dismiss", key="dismiss_report"):
            del st.session_state[LAST_REPORT_KEY]
            st.rerun()


def window_panel(collection: str) -> ChunksOverWindow | None:
    """How many chunks of the selected chunking are longer than the model's window, and by how much."""
    config = session.current_config()
    found = session.workbench().chunks_over_window(collection, config)
    if found is not None and found.overflow.over:
        described = found.overflow.describe(found.model)
        fix = (
            "chunking.fit_window is off for this preset; turn it on (the default) to cut them to fit"
            if not config.chunking.fit_window
            else LEFT_WHOLE
        )
        st.warning(
            md_escape(f"Chunking of preset “{session.current_preset()}”: {described}; {fix}."),
            icon=":material/content_cut:",
        )
    return found


def document_table(documents: list, over_window: ChunksOverWindow | None = None) -> None:
    over = over_window.by_document if over_window is not None else {}
    st.dataframe(
        pd.DataFrame(
            [
                {
                    "name": shown_name(doc.source),
                    "type": doc.doc_type,
                    "size (KB)": round(doc.size_bytes / 1024, 1),
                    "chunks": doc.chunk_count,
                    "over the window": len(over.get(doc.id, ())),
                    "images": images_in_brief(notes_of(doc.parse_report)),
                    "status": doc.status,
                    "ingested at": doc.ingested_at,
                    "reason": doc.error or "",
                }
                for doc in documents
            ]
        ),
        hide_index=True,
        width="stretch",
        column_config={"ingested at": st.column_config.DatetimeColumn(format="YYYY-MM-DD HH:mm:ss")},
    )


def ocr_retry_panel(collection: str, documents: list) -> None:
    """A button that reads the pictures an ingest skipped for time, a limit or a missing tesseract
    (``sync --ocr``): only their documents are parsed again, from the kept originals."""
    waiting = {doc.source: len(retryable(notes_of(doc.parse_report))) for doc in documents if doc.status == "success"}
    waiting = {source: n for source, n in waiting.items() if n}
    if read_only() or not waiting:
        return
    pictures = count(sum(waiting.values()), "picture")
    if st.button(
        f"Read {pictures} skipped by OCR",
        key="retry_ocr",
        icon=":material/image_search:",
        help=f"In {', '.join(shown_name(source) for source in waiting)}: skipped for time, a limit or a missing "
        "tesseract. Only these documents are parsed again; the rest stay as they are (as sync --ocr)",
    ):
        with st.spinner(f"Reading {pictures} in {count(len(waiting), 'document')}"):
            retry = session.workbench().retry_ocr(collection)
        session.flash("info", md_escape("; ".join(line.strip() for line in retry.lines())))
        st.rerun()


def document_detail(collection: str, documents: list) -> None:
    by_id = {doc.id: doc for doc in documents}
    doc_id = st.selectbox(
        "Inspect a document", list(by_id), format_func=lambda i: document_label(by_id[i]), key="documents_inspect"
    )
    doc = by_id[doc_id]
    if doc.status != "success":
        st.error(
            f"**{md_escape(shown_name(doc.source))}** failed to ingest: "
            f"{md_escape(doc.error or 'no reason recorded')}. "
            "Fix the file and upload it again, or delete this entry."
        )
    else:
        document_language_warning(collection, doc)
        images = describe_images(notes_of(doc.parse_report))
        if images:
            st.info(
                "Pictures in this document: " + "; ".join(md_escape(line) for line in images) + ". Text OCR "
                "read is in the Markdown where the picture stands, as a quote headed “Text in the image (OCR)”.",
                icon=":material/image_search:",
            )
        image = session.workbench().original_image(doc)
        if image is not None:
            st.image(
                image[0],
                caption=f"{shown_name(doc.source)}: the picture; its caption and the text OCR read in it are "
                "below, and that text is what is searched",
            )
        # the open tab only: the other one's text or table would be sent with every run of the page
        markdown_tab, chunks_tab = st.tabs(["Canonical Markdown", "Chunks"], key=DETAIL_TAB_KEY, on_change="rerun")
        if markdown_tab.open:
            with markdown_tab:
                markdown_preview(doc)
        if chunks_tab.open:
            with chunks_tab:
                chunk_browser(doc)
    if not read_only() and st.button(
        f"Delete {md_escape(shown_name(doc.source))}", key="delete_document", icon=":material/delete:"
    ):
        session.workbench().delete_document(collection, str(doc.id))
        session.flash(
            "success", f"Deleted **{md_escape(shown_name(doc.source))}** from {md_escape(shown_name(collection))}."
        )
        st.rerun()


def markdown_preview(doc) -> None:
    markdown, page_starts = session.document_markdown(doc.id)
    pages = f", {len(page_starts)} pages" if page_starts else ""
    st.caption(
        f"{len(markdown):,} characters{pages}. This exact text is what gets chunked; every offset "
        "(chunks, citations, golden-set spans) points into it."
    )
    st.code(markdown, language="markdown", wrap_lines=True, height=440)


def chunk_browser(doc) -> None:
    config = session.current_config()
    rows = session.document_chunks(doc.id, config)
    chunking = config.chunking
    st.caption(
        f"Chunking of preset “{md_escape(session.current_preset())}”: {chunking.strategy}, size {chunking.size} "
        f"{chunking.unit}, overlap {chunking.overlap}."
    )
    if not rows:
        st.info(
            "This chunking has not been built for the collection yet. It is built (and only new texts "
            "embedded) the first time this preset is queried, or when you apply it in the Chunking lab."
        )
        return
    frame = pd.DataFrame(
        [
            {
                "#": ordinal + 1,
                "start": start,
                "end": end,
                "tokens": tokens,
                "over model max": over,
                "page": page,
                "headings": " › ".join(headings or ()),
                "text": shorten(text, 140),
            }
            for (_id, _doc, ordinal, start, end, text, _indexed, headings, page, tokens, over, _hash, *_meta) in rows
        ]
    )
    st.dataframe(frame, hide_index=True, width="stretch", height=min(38 + 35 * len(frame), 320))
    number = st.number_input("Show chunk", min_value=1, max_value=len(rows), value=1, key=f"chunk_number_{doc.id}")
    row = rows[int(number) - 1]
    _id, _doc, _ordinal, start, end, text, indexed, *_ = row
    st.caption(f"Chunk {int(number)}: characters {start}–{end}")
    st.code(text, language=None, wrap_lines=True)
    enrichment_panel(row[12] if len(row) > 12 else None, chunking.enrich)
    if indexed != text:
        st.caption(
            "Indexed text (what is embedded and BM25-indexed: the heading path, then the chunk"
            + (", then its enrichment)" if chunking.enrich_index else ")")
        )
        st.code(indexed, language=None, wrap_lines=True)


def collection_section(current: str | None) -> None:
    if current is None:
        st.info(
            "No collection yet. Create one above, or load the bundled demo with the button in the sidebar.",
            icon=":material/info:",
        )
        return
    st.subheader(f"Collection “{md_escape(current)}”")
    all_documents = session.documents(current)
    if not all_documents:  # said above the upload box: after the upload it comes too late
        chinese_model_warning(session.workbench().config_for(current).embedding.model, current)
    upload_panel(current)
    last_report(current)
    if not all_documents:
        st.info(
            "No documents yet. Drop files on the uploader above (PDF, Word, PowerPoint, Excel, HTML, Markdown, "
            "text, CSV, JSON, images, source code or notebooks), then press Ingest.",
            icon=":material/upload_file:",
        )
        return
    if any(doc.status == "success" for doc in all_documents):
        language_panel(current)
    document_table(all_documents, window_panel(current))
    ocr_retry_panel(current, all_documents)
    document_detail(current, all_documents)


st.title("Documents")
current = session.current_collection()
collections_panel(current)
collection_section(current)
runtime_panel(session.workbench(), current)

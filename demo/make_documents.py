"""Build the bundled demo corpus and its golden set; the outputs are committed.

Run from the project root::

    .venv/bin/python demo/make_documents.py

It writes ``demo/documents/``:

* a SciFact slice: the abstracts relevant to ``SCIFACT_QUERIES`` plus, per query, the best
  BM25 matches that are *not* relevant (hard negatives, so ranking has something to get
  wrong), as ``scifact-<_id>.md`` files holding ``# title\\n\\ntext\\n``;
* four short documents about RAG written for this project: two Markdown files, a PDF
  (reportlab) and a DOCX (python-docx), so every parser route shows up in the demo;

and ``demo/golden.jsonl``: the SciFact claims with their document-level qrels and
evidence-sentence spans, and hand-written questions about the four documents with quote
judgements whose offsets point into each file's canonical Markdown (computed by parsing the
generated file with ``workbench.ingestion.parsers``, so they match what ingestion stores).

The output is deterministic: the same dataset and code give byte-identical Markdown and golden
set (the PDF and DOCX carry no timestamps either).
"""

from __future__ import annotations

import csv
import json
import re
import sys
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

PROJECT_DIR = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(PROJECT_DIR))

from workbench.ingestion.beir import document_markdown  # noqa: E402  (needs the path above)

DEMO_DIR = PROJECT_DIR / "demo"
DOCUMENTS_DIR = DEMO_DIR / "documents"
GOLDEN_PATH = DEMO_DIR / "golden.jsonl"
SCIFACT_DIR = PROJECT_DIR.parent / "shared" / "datasets" / "scifact"

#: SciFact test claims whose relevant abstracts are short and have evidence spans, picked to
#: spread over a few themes (RNA processing, ageing, immunity, metabolism, cell death) so the
#: embedding map shows clusters
SCIFACT_QUERIES = (
    "49",
    "148",
    "183",
    "212",
    "218",
    "248",
    "298",
    "793",
    "380",
    "452",
    "475",
    "540",
    "744",
    "784",
    "845",
)
SCIFACT_DOCUMENT_TARGET = 40
HARD_NEGATIVES_PER_QUERY = 2
#: longer abstracts cost embedding time on first start without making the demo better
MAX_ABSTRACT_CHARS = 1700


# -- the documents written for the demo -----------------------------------------------------


@dataclass(frozen=True)
class Section:
    heading: str
    paragraphs: tuple[str, ...]


@dataclass(frozen=True)
class Essay:
    file_name: str
    title: str
    sections: tuple[Section, ...]


@dataclass(frozen=True)
class WrittenQuestion:
    id: str
    query: str
    file_name: str
    #: a sentence of the document; stored with the exact offsets it has in the parsed Markdown
    quote: str
    grade: int = 2


PIPELINE_OVERVIEW = Essay(
    "rag-pipeline-overview.md",
    "How a retrieval-augmented generation pipeline works",
    (
        Section(
            "Why retrieve at all",
            (
                "A language model answers from what it absorbed during training, which is frozen, general and "
                "impossible to cite. Retrieval-augmented generation (RAG) puts a search step in front of the "
                "model: the question is first used to find a handful of passages from your own documents, and "
                "the model is asked to answer from those passages. The answer can then point at its sources, "
                "and updating the knowledge means re-indexing documents rather than re-training a model.",
                "Most failures of a RAG system are retrieval failures. If the passage that holds the answer is "
                "not among the few handed to the model, no amount of prompt engineering recovers it. That is "
                "why it pays to look at every stage of retrieval separately.",
            ),
        ),
        Section(
            "From files to canonical text",
            (
                "Uploaded files arrive as PDF, Word, HTML, spreadsheets or plain text. Each is converted once "
                "into a canonical Markdown string, and every later stage refers to offsets in that string. "
                "Keeping one canonical text per document means a chunk, a citation and a relevance judgement "
                "can all be expressed as a character range in the same coordinates.",
            ),
        ),
        Section(
            "Chunks: the unit of retrieval",
            (
                "Whole documents are too long to embed and too coarse to hand to a model, so the canonical text "
                "is cut into chunks. The chunk is what gets embedded, indexed, scored and returned. A chunk "
                "that is too small loses the context that makes it meaningful; a chunk that is too large "
                "dilutes its embedding and may be silently truncated by the embedding model.",
                "Many pipelines prefix each chunk with the headings it sits under before embedding it, so a "
                "paragraph from deep inside a section still carries the topic of that section.",
            ),
        ),
        Section(
            "Embeddings and the vector index",
            (
                "An embedding model maps each chunk to a vector so that texts with similar meaning land close "
                "together. At query time the question is embedded with the same model and its nearest "
                "neighbours are looked up. An approximate nearest-neighbour index such as HNSW answers that "
                "lookup in milliseconds by walking a graph of vectors instead of comparing against every one.",
            ),
        ),
        Section(
            "Lexical search with BM25",
            (
                "BM25 scores a chunk by the query terms it contains, rewarding rare terms and discounting "
                "long chunks. It knows nothing about meaning, but it is precise for names, codes and exact "
                "phrases that an embedding model may blur together.",
            ),
        ),
        Section(
            "Combining routes",
            (
                "Hybrid retrieval runs both the vector route and the BM25 route and merges their ranked lists. "
                "Reciprocal rank fusion is a common choice because it only needs ranks, not comparable scores.",
            ),
        ),
        Section(
            "Diversity with maximal marginal relevance",
            (
                "The top results of a search are often near-duplicates of each other. Maximal marginal "
                "relevance picks results one at a time and penalises each candidate by its similarity to the "
                "results already picked, so a lambda close to one favours relevance and a lambda close to zero "
                "favours diversity.",
            ),
        ),
        Section(
            "Reranking with a cross-encoder",
            (
                "A bi-encoder embeds the query and the chunk separately, which is what makes indexing possible. "
                "A cross-encoder reads the query and the chunk together in one pass, so it can weigh every word "
                "of the chunk against every word of the question. It is far more accurate and far slower, "
                "which is why it only rescores the top few dozen candidates of the cheaper stages.",
            ),
        ),
        Section(
            "What the generator receives",
            (
                "The final list, usually five to ten chunks, is placed into the prompt with its sources. Every "
                "chunk that is there by mistake costs context space and invites the model to use it.",
            ),
        ),
    ),
)

HYBRID_SEARCH = Essay(
    "hybrid-search-and-fusion.pdf",
    "Hybrid search: when keywords and vectors disagree",
    (
        Section(
            "Two ways to score a passage",
            (
                "Lexical retrieval counts shared words. Dense retrieval compares learned vectors. The two make "
                "different mistakes, and a hybrid system exists to let one route rescue the other.",
            ),
        ),
        Section(
            "Where BM25 wins",
            (
                "BM25 is hard to beat on queries that contain a rare identifier: a gene symbol, an error code, a "
                "product number or a surname. Such tokens are rare in the collection, so their inverse document "
                "frequency is high and a single match lifts a passage to the top.",
                "BM25 fails when the question is phrased in different words than the answer, because a "
                "paraphrase shares no terms with the passage that answers it.",
            ),
        ),
        Section(
            "Where dense retrieval wins",
            (
                "A sentence embedding places a question and its paraphrased answer close together even when "
                "they share no words. Dense retrieval therefore handles natural questions well, but it can "
                "confuse two passages that are about the same topic while differing in the one detail that "
                "matters, such as a drug name or a number.",
            ),
        ),
        Section(
            "Reciprocal rank fusion",
            (
                "Reciprocal rank fusion gives every document the sum, over the routes that returned it, of one "
                "divided by the constant k plus its rank in that route. With the customary k of 60 a document "
                "ranked first by one route and tenth by the other outscores a document ranked second by only one "
                "route.",
                "Because only ranks enter the formula, scores on incompatible scales never have to be compared. "
                "The constant k controls how quickly the reward decays with rank: a small k lets the top few "
                "positions dominate, a large k flattens the curve.",
            ),
        ),
        Section(
            "Weighted score fusion",
            (
                "The alternative is to normalise each route's scores, for example with min-max scaling or z "
                "scores, and add them with weights. It can use the size of the score gaps, which rank fusion "
                "throws away, but the result depends on the normalisation and on how many candidates each "
                "route returned.",
            ),
        ),
        Section(
            "Candidates per route",
            (
                "Each route returns a fixed number of candidates before fusion. Too few and a passage that one "
                "route ranks highly never meets the other route; too many and fusion spends time on passages "
                "no later stage will keep.",
            ),
        ),
    ),
)

CHUNKING_GUIDE = Essay(
    "chunking-strategies.docx",
    "A field guide to chunking",
    (
        Section(
            "Fixed windows",
            (
                "The simplest strategy slides a window of a fixed number of characters or tokens over the text. "
                "It is predictable and fast, but it cuts through sentences, tables and code without noticing.",
            ),
        ),
        Section(
            "Recursive splitting",
            (
                "Recursive splitting tries the coarsest separator first, such as headings, then blank lines, "
                "then line breaks, then sentence ends and finally spaces, and only descends to a finer "
                "separator when a piece is still too long. Pieces are then packed greedily up to the size limit.",
            ),
        ),
        Section(
            "Heading sections",
            (
                "Documents with a clear outline can be split at their headings, one chunk per section. Sections "
                "longer than the size limit still need to be split further.",
            ),
        ),
        Section(
            "Sentence windows",
            (
                "A sentence window chunk is a single sentence widened by a few neighbouring sentences on each "
                "side. Matching happens on a small, focused unit while the returned text keeps its context.",
            ),
        ),
        Section(
            "Semantic breaks",
            (
                "Semantic chunking embeds each sentence and starts a new chunk where the similarity between "
                "neighbouring sentences drops, on the theory that a drop marks a change of topic. It costs an "
                "embedding per sentence at ingestion time.",
            ),
        ),
        Section(
            "Overlap",
            (
                "Overlap repeats the end of one chunk at the start of the next, so that a statement split by a "
                "boundary still appears whole in at least one chunk. It costs index space and can make "
                "neighbouring chunks compete for the same query.",
            ),
        ),
        Section(
            "Token limits",
            (
                "Every embedding model has a maximum sequence length, 256 word pieces for all-MiniLM-L6-v2. "
                "Text beyond that limit is silently cut off before embedding, so the end of an overlong chunk "
                "is invisible to vector search even though BM25 still sees it.",
            ),
        ),
    ),
)

EVALUATION_NOTES = Essay(
    "evaluating-retrieval.md",
    "Measuring retrieval quality",
    (
        Section(
            "Golden sets",
            (
                "A golden set is a list of realistic questions, each with the documents or passages that "
                "answer it. It turns a debate about which configuration feels better into a number that can be "
                "compared run after run.",
            ),
        ),
        Section(
            "Span judgements survive re-chunking",
            (
                "Judging chunks directly breaks as soon as the chunking changes, because the chunk ids change. "
                "Judging a character span of the document instead keeps the golden set valid: a chunk counts "
                "as relevant when it overlaps a relevant span, whatever the chunking.",
            ),
        ),
        Section(
            "Recall at k",
            (
                "Recall at k is the share of the relevant items that appear anywhere in the first k results. It "
                "answers whether the answer was retrieved at all, and ignores where in the top k it landed.",
            ),
        ),
        Section(
            "Mean reciprocal rank",
            (
                "Mean reciprocal rank looks only at the first relevant result: one over its rank, averaged over "
                "the questions. It suits tasks where one good passage is enough.",
            ),
        ),
        Section(
            "Normalised discounted cumulative gain",
            (
                "nDCG rewards relevant results more the higher they appear, with a logarithmic discount by "
                "rank, and divides by the best achievable score so that questions with many relevant items "
                "and questions with one are on the same scale. Graded judgements let a perfect answer count "
                "more than a partially useful one.",
            ),
        ),
        Section(
            "Comparing configurations",
            (
                "A difference between two runs means little without the per-question picture. Look at the "
                "questions that changed, not only at the average, before adopting a new configuration.",
            ),
        ),
    ),
)

ESSAYS = (PIPELINE_OVERVIEW, HYBRID_SEARCH, CHUNKING_GUIDE, EVALUATION_NOTES)

WRITTEN_QUESTIONS = (
    WrittenQuestion(
        "rag-1",
        "Why do retrieval-augmented generation systems usually fail?",
        "rag-pipeline-overview.md",
        "Most failures of a RAG system are retrieval failures.",
    ),
    WrittenQuestion(
        "rag-2",
        "What can a cross-encoder do that a bi-encoder cannot?",
        "rag-pipeline-overview.md",
        "A cross-encoder reads the query and the chunk together in one pass, so it can weigh every "
        "word of the chunk against every word of the question.",
    ),
    WrittenQuestion(
        "rag-3",
        "How does the MMR lambda trade relevance against diversity?",
        "rag-pipeline-overview.md",
        "Maximal marginal relevance picks results one at a time and penalises each candidate by its "
        "similarity to the results already picked, so a lambda close to one favours relevance and a "
        "lambda close to zero favours diversity.",
    ),
    WrittenQuestion(
        "rag-4",
        "How is the reciprocal rank fusion score of a document computed?",
        "hybrid-search-and-fusion.pdf",
        "Reciprocal rank fusion gives every document the sum, over the routes that returned it, of "
        "one divided by the constant k plus its rank in that route.",
    ),
    WrittenQuestion(
        "rag-5",
        "Why does keyword search miss questions worded differently from the answer?",
        "hybrid-search-and-fusion.pdf",
        "BM25 fails when the question is phrased in different words than the answer, because a "
        "paraphrase shares no terms with the passage that answers it.",
    ),
    WrittenQuestion(
        "rag-6",
        "What happens to the part of a chunk beyond the model's maximum sequence length?",
        "chunking-strategies.docx",
        "Text beyond that limit is silently cut off before embedding, so the end of an overlong "
        "chunk is invisible to vector search even though BM25 still sees it.",
    ),
    WrittenQuestion(
        "rag-7",
        "Why repeat text between neighbouring chunks?",
        "chunking-strategies.docx",
        "Overlap repeats the end of one chunk at the start of the next, so that a statement split by "
        "a boundary still appears whole in at least one chunk.",
    ),
    WrittenQuestion(
        "rag-8",
        "Why judge character spans instead of chunks in a golden set?",
        "evaluating-retrieval.md",
        "Judging a character span of the document instead keeps the golden set valid: a chunk "
        "counts as relevant when it overlaps a relevant span, whatever the chunking.",
    ),
    WrittenQuestion(
        "rag-9",
        "Which metric only cares about the first relevant result?",
        "evaluating-retrieval.md",
        "Mean reciprocal rank looks only at the first relevant result: one over its rank, averaged over the questions.",
    ),
)


# -- writers --------------------------------------------------------------------------------


def essay_markdown(essay: Essay) -> str:
    parts = [f"# {essay.title}\n"]
    for section in essay.sections:
        parts.append(f"\n## {section.heading}\n")
        for paragraph in section.paragraphs:
            parts.append(f"\n{paragraph}\n")
    return "".join(parts)


def write_pdf(essay: Essay, path: Path) -> None:
    from reportlab.lib.pagesizes import A4
    from reportlab.lib.styles import getSampleStyleSheet
    from reportlab.platypus import PageBreak, Paragraph, SimpleDocTemplate, Spacer

    styles = getSampleStyleSheet()
    story = [Paragraph(essay.title, styles["Title"])]
    half = len(essay.sections) // 2
    for position, section in enumerate(essay.sections):
        if position == half:
            story.append(PageBreak())  # two pages, so the demo shows page numbers on chunks
        story.append(Paragraph(section.heading, styles["Heading2"]))
        for paragraph in section.paragraphs:
            story.append(Paragraph(paragraph, styles["BodyText"]))
            story.append(Spacer(1, 6))
    # invariant=True leaves out the creation date and random document id: reproducible bytes
    document = SimpleDocTemplate(str(path), pagesize=A4, title=essay.title, author="RAG Workbench demo", invariant=True)
    document.build(story)


def write_docx(essay: Essay, path: Path) -> None:
    import datetime

    import docx

    document = docx.Document()
    document.add_heading(essay.title, level=1)
    for section in essay.sections:
        document.add_heading(section.heading, level=2)
        for paragraph in section.paragraphs:
            document.add_paragraph(paragraph)
    fixed = datetime.datetime(2025, 1, 1)
    properties = document.core_properties
    properties.author, properties.title = "RAG Workbench demo", essay.title
    properties.created = properties.modified = fixed
    properties.last_modified_by = "RAG Workbench demo"
    properties.revision = 1
    document.save(str(path))
    _freeze_zip_timestamps(path)


def _freeze_zip_timestamps(path: Path) -> None:
    """Rewrite the DOCX container with fixed entry times: zip entries otherwise carry 'now'."""
    import zipfile

    with zipfile.ZipFile(path) as source:
        entries = [(info, source.read(info)) for info in source.infolist()]
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as target:
        for info, data in entries:
            frozen = zipfile.ZipInfo(info.filename, date_time=(2025, 1, 1, 0, 0, 0))
            frozen.compress_type = zipfile.ZIP_DEFLATED
            target.writestr(frozen, data)


def write_essay(essay: Essay) -> Path:
    path = DOCUMENTS_DIR / essay.file_name
    suffix = path.suffix
    if suffix == ".md":
        path.write_text(essay_markdown(essay), encoding="utf-8")
    elif suffix == ".pdf":
        write_pdf(essay, path)
    elif suffix == ".docx":
        write_docx(essay, path)
    else:
        raise ValueError(f"no writer for {essay.file_name}; use .md, .pdf or .docx")
    return path


def locate_quote(markdown: str, sentence: str) -> tuple[int, int]:
    """Offsets of ``sentence`` in ``markdown``, letting any run of whitespace match any other.

    PDF extraction re-wraps lines, so a sentence may come back with line breaks inside it.
    """
    pattern = r"\s+".join(re.escape(word) for word in sentence.split())
    found = re.search(pattern, markdown)
    if found is None:
        raise ValueError(f"quote not found in the parsed document: {sentence[:60]!r}...")
    return found.start(), found.end()


def written_golden(paths: dict[str, Path]) -> list[dict]:
    from workbench.ingestion.parsers import parse_bytes

    parsed = {name: parse_bytes(path.read_bytes(), name).markdown for name, path in paths.items()}
    lines = []
    for question in WRITTEN_QUESTIONS:
        markdown = parsed[question.file_name]
        start, end = locate_quote(markdown, question.quote)
        lines.append(
            {
                "id": question.id,
                "query": question.query,
                "relevant": [
                    {
                        "doc": question.file_name,
                        "start": start,
                        "end": end,
                        "quote": markdown[start:end],
                        "grade": question.grade,
                    }
                ],
            }
        )
    return lines


# -- the SciFact slice ------------------------------------------------------------------------


def read_jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def scifact_file_name(corpus_id: str) -> str:
    return f"scifact-{corpus_id}.md"


def build_scifact_slice() -> list[dict]:
    """Write the chosen abstracts; return the golden lines for ``SCIFACT_QUERIES``."""
    if not (SCIFACT_DIR / "corpus.jsonl").exists():
        raise SystemExit(f"SciFact not found at {SCIFACT_DIR}; the demo slice is cut from ../shared/datasets/scifact")
    corpus = {str(record["_id"]): record for record in read_jsonl(SCIFACT_DIR / "corpus.jsonl")}
    claims = {str(record["_id"]): record["text"] for record in read_jsonl(SCIFACT_DIR / "queries.jsonl")}
    qrels: dict[str, dict[str, int]] = defaultdict(dict)
    with (SCIFACT_DIR / "qrels" / "test.tsv").open(encoding="utf-8") as handle:
        for row in csv.DictReader(handle, delimiter="\t"):
            if int(row["score"]) > 0:
                qrels[row["query-id"]][row["corpus-id"]] = int(row["score"])
    spans = defaultdict(list)
    for span in read_jsonl(SCIFACT_DIR / "qrels" / "test_spans.jsonl"):
        spans[str(span["query-id"])].append(span)

    relevant_ids = list(dict.fromkeys(doc for q in SCIFACT_QUERIES for doc in qrels[q]))
    chosen = list(relevant_ids)
    chosen += hard_negatives(corpus, claims, qrels, set(relevant_ids), SCIFACT_DOCUMENT_TARGET - len(relevant_ids))

    body_offsets = {}
    for corpus_id in chosen:
        record = corpus[corpus_id]
        markdown, offset = document_markdown(record.get("title", ""), record.get("text", ""))
        (DOCUMENTS_DIR / scifact_file_name(corpus_id)).write_text(markdown, encoding="utf-8")
        body_offsets[corpus_id] = offset

    lines = []
    for query_id in SCIFACT_QUERIES:
        relevant = [{"doc": scifact_file_name(doc), "grade": grade} for doc, grade in sorted(qrels[query_id].items())]
        for span in spans[query_id]:
            doc = str(span["corpus-id"])
            shift = body_offsets[doc]
            relevant.append(
                {
                    "doc": scifact_file_name(doc),
                    "start": int(span["start"]) + shift,
                    "end": int(span["end"]) + shift,
                    "quote": span["text"],
                }
            )
        lines.append({"id": f"scifact-{query_id}", "query": claims[query_id], "relevant": relevant})
    return lines


def hard_negatives(
    corpus: dict[str, dict], claims: dict[str, str], qrels, excluded: set[str], wanted: int
) -> list[str]:
    """Per chosen claim, its best BM25 matches over the whole corpus that are not relevant."""
    import numpy as np

    from store.sparse_index import SparseIndex
    from store.text_tokenizer import Bm25Tokenizer

    ids = list(corpus)
    texts = [f"{corpus[i].get('title', '')}\n{corpus[i].get('text', '')}" for i in ids]
    index = SparseIndex.build(np.arange(len(ids), dtype=np.int64), texts, Bm25Tokenizer(), k1=1.2, b=0.75)
    picked: list[str] = []
    for query_id in SCIFACT_QUERIES:
        taken = 0
        for position, _score in index.search(claims[query_id], 30):
            candidate = ids[int(position)]
            if candidate in excluded or candidate in picked or candidate in qrels[query_id]:
                continue
            if len(corpus[candidate].get("text", "")) > MAX_ABSTRACT_CHARS:
                continue
            picked.append(candidate)
            taken += 1
            if taken == HARD_NEGATIVES_PER_QUERY:
                break
    return picked[:wanted]


def main() -> int:
    DOCUMENTS_DIR.mkdir(parents=True, exist_ok=True)
    for stale in DOCUMENTS_DIR.iterdir():
        stale.unlink()
    golden = build_scifact_slice()
    written = {essay.file_name: write_essay(essay) for essay in ESSAYS}
    golden += written_golden(written)
    GOLDEN_PATH.write_text("".join(json.dumps(line, ensure_ascii=False) + "\n" for line in golden), encoding="utf-8")
    files = sorted(p.name for p in DOCUMENTS_DIR.iterdir())
    print(f"wrote {len(files)} documents to {DOCUMENTS_DIR} and {len(golden)} golden queries to {GOLDEN_PATH}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""A fake OpenAI-compatible endpoint for the tests: a real HTTP server on 127.0.0.1.

It speaks ``POST /v1/chat/completions`` and ``POST /v1/embeddings`` like any OpenAI-compatible
server. Replies are deterministic functions of the prompt: it recognises each workbench prompt
by its system message and answers the way a small, literal model would (word overlap decides
relevance and support, the first sentence of [S1] is the answer, ...). Document text arrives in
the prompts' data blocks (``workbench.llm.prompt_data``); the fake reads it from there, so a
stage that stopped wrapping its document text would get wrong replies. Tests can script a reply
for any prompt containing a given text, and switch the server to misbehave (slow, garbage,
malformed JSON, HTTP 500). Every request is counted, so a test can prove a run made no calls.

A test may instead pass ``respond(request)``, which chooses every chat reply itself (return a
string, or None for an HTTP 500). Each recorded request carries its decoded image parts
(``images``) and its ``authorization`` header, so vision tests can key replies by picture.
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from workbench.chunking.enrich import ENRICH_SYSTEM
from workbench.evaluation.answers import CONTEXT_PRECISION_SYSTEM, FAITHFULNESS_SYSTEM, RELEVANCE_SYSTEM
from workbench.generation.context import SYSTEM_INSTRUCTIONS
from workbench.golden.llm_judge import JUDGE_SYSTEM
from workbench.golden.prompts import SYSTEMS as SYNTH_SYSTEMS
from workbench.llm.prompt_data import data_blocks
from workbench.retrieval.enhance import DECOMPOSE_SYSTEM, HYDE_SYSTEM, MULTI_SYSTEM, REWRITE_SYSTEM
from workbench.retrieval.llm_rerank import RERANK_SYSTEM

FAKE_MODEL = "fake-llm"
EMBEDDING_DIMENSION = 64

#: the first words of each workbench system prompt -> the purpose it serves
PURPOSES = {
    REWRITE_SYSTEM[:60]: "query.rewrite",
    MULTI_SYSTEM.split("{n}")[0]: "query.multi",
    DECOMPOSE_SYSTEM.split("{n}")[0]: "query.decompose",
    HYDE_SYSTEM[:60]: "query.hyde",
    RERANK_SYSTEM[:60]: "rerank",
    ENRICH_SYSTEM[:60]: "enrich",
    SYSTEM_INSTRUCTIONS[:60]: "answer",
    FAITHFULNESS_SYSTEM[:60]: "judge.faithfulness",
    RELEVANCE_SYSTEM[:60]: "judge.answer_relevance",
    CONTEXT_PRECISION_SYSTEM[:60]: "judge.context_precision",
    **{system[:60]: f"golden.synth.{kind}" for kind, system in SYNTH_SYSTEMS.items()},
    JUDGE_SYSTEM[:60]: "golden.judge",
}
#: how a golden-synth reply can go wrong on request (``FakeOpenAI.synth_fault``, ``synth_fault_every``)
SYNTH_FAULTS = ("malformed", "unfound", "copy", "duplicate", "empty")

_CJK = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")
_LATIN = re.compile(r"[a-z0-9]{3,}")
_STOP = {
    "the",
    "and",
    "for",
    "with",
    "that",
    "this",
    "are",
    "was",
    "what",
    "how",
    "does",
    "which",
    "from",
    "its",
    "about",
    "into",
    "why",
    "when",
    "who",
    "can",
    "not",
    "has",
    "have",
    "their",
    "they",
    "them",
    "you",
}


def words(text: str) -> set[str]:
    """Content words: lowercase Latin words of 3+ letters (no stopwords) and single CJK characters."""
    lowered = text.lower()
    return {w for w in _LATIN.findall(lowered) if w not in _STOP} | set(_CJK.findall(text)) - set(
        "的了是在和与及或也就都而吗呢什么哪些怎样如何"
    )


def overlap(needle: str, haystack: str) -> float:
    """Share of ``needle``'s content words found in ``haystack``."""
    wanted = words(needle)
    return len(wanted & words(haystack)) / len(wanted) if wanted else 0.0


def token_count(text: str) -> int:
    return len(re.findall(r"[A-Za-z0-9]+", text)) + len(_CJK.findall(text))


def text_of(content) -> str:
    """A message's text: the string, or the text parts of OpenAI content parts (images are left out)."""
    if isinstance(content, str):
        return content
    return "\n".join(part.get("text", "") for part in content or () if isinstance(part, dict))


def _field(text: str, name: str) -> str:
    """The value after ``Name:`` up to the next blank line."""
    match = re.search(rf"{name}:\s*(.*?)(?:\n\s*\n|$)", text, re.DOTALL)
    return match.group(1).strip() if match else ""


def _first_sentence(text: str) -> str:
    match = re.search(r"(.+?(?:[.!?](?=\s|$)|[。！？]))", " ".join(text.split()))
    return (match.group(1) if match else " ".join(text.split()))[:300]


def _sources(user: str) -> dict[str, str]:
    """[S#] label -> the source's text (its data block without the header line)."""
    return {
        name: block.split("\n", 1)[1].strip() if "\n" in block else ""
        for name, block in data_blocks(user)
        if re.fullmatch(r"S\d+", name)
    }


def _block(user: str, name: str) -> str:
    """The text of the data block called ``name`` ("" when the prompt has none)."""
    return next((text for block_name, text in data_blocks(user) if block_name == name), "")


def default_reply(purpose: str, system: str, user: str) -> str:
    """What the fake model answers to a workbench prompt when no script matches."""
    if purpose == "query.rewrite":
        return f"{_field(user, 'Query').rstrip('?？')} overview"
    if purpose in ("query.multi", "query.decompose"):
        asked = re.search(r"\b(\d+)\b", system)
        if asked is None:
            raise ValueError(f"{purpose}: the system prompt names no count of queries")
        n = int(asked.group(1))
        question = _field(user, "Query" if purpose == "query.multi" else "Question")
        if purpose == "query.decompose":
            parts = [p.strip() for p in re.split(r"\band\b|和|以及|,|，", question) if p.strip()]
            return "\n".join(parts[:n]) if len(parts) > 1 else question
        tokens = question.rstrip("?？").split()
        if len(tokens) < 2:  # no spaces (Chinese): vary by suffixes instead of word order
            return "\n".join(f"{question.rstrip('?？')} {suffix}" for suffix in ("定义", "原理", "例子")[:n])
        return "\n".join(" ".join(tokens[i:] + tokens[:i]) for i in range(1, n + 1))
    if purpose == "query.hyde":
        question = _field(user, "Question").rstrip("?？")
        return f"{question}. This passage explains {question} with its main terms and findings."
    if purpose == "rerank":
        query, passage = _field(user, "Query"), _block(user, "passage")
        return str(round(10 * overlap(query, passage)))
    if purpose == "enrich":
        passage = _block(user, "passage").strip()
        plain = re.sub(r"[#>*_`]", " ", passage)
        distinct = sorted(words(plain), key=lambda w: (-len(w), w))
        return json.dumps(
            {"title": " ".join(plain.split()[:6]), "summary": _first_sentence(plain), "tags": distinct[:4]},
            ensure_ascii=False,
        )
    if purpose == "answer":
        sources = _sources(user)
        if not sources:
            return "The sources do not contain the answer."
        return f"{_first_sentence(sources['S1'])} [S1]"
    if purpose == "judge.faithfulness":
        statement = _block(user, "statement")
        cited = "\n".join(text for name, text in data_blocks(user) if re.fullmatch(r"S\d+", name))
        return "yes" if overlap(statement, cited) >= 0.6 else "no"
    if purpose == "judge.answer_relevance":
        question, answer = _field(user, "Question"), _block(user, "answer")
        return str(min(10, round(10 * overlap(question, answer) * 1.5)))
    if purpose == "judge.context_precision":
        question, passage = _field(user, "Question"), _block(user, "passage")
        return "yes" if overlap(question, passage) >= 0.3 else "no"
    if purpose.startswith("golden.synth."):
        return synth_reply(purpose.removeprefix("golden.synth."), user)
    if purpose == "golden.judge":
        blocks = dict(data_blocks(user))
        query, passage = blocks.get("query", ""), blocks.get("passage", "")
        share = overlap(query, passage)
        grade = 3 if share >= 0.6 else 2 if share >= 0.4 else 1 if share >= 0.2 else 0
        return json.dumps({"grade": grade, "reason": f"the passage has {share:.0%} of the query's words"})
    return "I am a fake model and do not know this prompt."


def _quotable_sentence(passage: str) -> str:
    """The first sentence of the passage's prose (headings, tables, lists and code left out; a
    sentence never spans them), with its whitespace joined the way a model copies it."""
    runs, current = [], []
    for line in passage.splitlines() + [""]:
        if line.strip() and not re.match(r"\s*([#|>*`-]|\d+\.)", line):
            current.append(line)
        elif current:
            runs.append(" ".join(current))
            current = []
    sentences = []
    for run in runs or [passage]:
        # a model copies Chinese without the line breaks a PDF put between its characters
        joined = re.sub(r"(?<=[\u3400-\u9fff，。])\s+(?=[\u3400-\u9fff，。])", "", " ".join(run.split()))
        sentences += re.findall(r".+?(?:[.!?](?=\s|$)|[。！？])", joined) or [joined]
    for sentence in sentences:
        if len(words(sentence)) >= 4:
            return sentence.strip()[:400]
    return sentences[0].strip()[:400]


def _topic_words(sentence: str, count: int = 2) -> list[str]:
    """A few distinct words of the sentence to ask about: its longest Latin words, or for Chinese
    its first two-character words."""
    latin = sorted({w for w in _LATIN.findall(sentence.lower()) if w not in _STOP}, key=lambda w: (-len(w), w))
    if latin and not _CJK.search(sentence):
        return latin[:count]
    han = "".join(_CJK.findall(sentence))
    return [han[i : i + 2] for i in range(0, min(len(han), 2 * count), 2)] or latin[:count]


def synth_reply(kind: str, user: str, fault: str = "") -> str:
    """A golden-synth reply: a question in the passage's language that does not copy it, and the
    passage's first prose sentence as the quote; ``fault`` makes it go wrong one of SYNTH_FAULTS ways."""
    passages = [text for name, text in data_blocks(user) if name.startswith("passage")] or [user]
    quotes = [_quotable_sentence(p) for p in passages]
    chinese = bool(_CJK.search(quotes[0]))
    topic = _topic_words(quotes[0]) + (_topic_words(quotes[1], 1) if len(quotes) > 1 else [])
    a, b = (topic + ["it", "it"])[:2]
    if kind == "unanswerable":
        question = f"{a}在1850年的价格是多少？" if chinese else f"What did {a} cost in the year 1850?"
    elif kind == "multi_hop":
        question = f"{a}与{b}之间有什么联系？" if chinese else f"How is {a} connected with {b}?"
    elif kind == "abstract":
        question = f"关于{a}，这段文字的主旨是什么？" if chinese else f"What is the overall point made about {a}?"
    else:
        question = f"关于{a}和{b}，文中提到了什么？" if chinese else f"Which finding on {a} and {b} is reported?"
    quote: str | list[str] = quotes[:2] if kind == "multi_hop" else ("" if kind == "unanswerable" else quotes[0])
    if fault == "malformed":
        return f"Sure! Here is a question: {question}"
    if fault == "unfound":
        quote = "这句话并不在文中。" if chinese else "This sentence does not appear in the passage at all."
    elif fault == "copy":
        question = quotes[0].rstrip(".。") + ("？" if chinese else "?")
    elif fault == "duplicate":
        question = "这个集合的主要内容是什么？" if chinese else "What is this collection mainly about?"
    elif fault == "empty":
        question, quote = "", ""
    return json.dumps({"question": question, "quote": quote}, ensure_ascii=False)


def hashed_embedding(text: str) -> list[float]:
    """Bag of content words hashed into 64 buckets (not normalised, as real endpoints may send)."""
    vector = [0.0] * EMBEDDING_DIMENSION
    for word in words(text) or {text}:
        vector[int(hashlib.md5(word.encode()).hexdigest(), 16) % EMBEDDING_DIMENSION] += 2.0
    vector[len(text) % EMBEDDING_DIMENSION] += 0.01
    return vector


@dataclass
class Script:
    contains: str
    reply: str
    purpose: str | None = None


class FakeOpenAI(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False

    def __init__(self, respond: Callable[[dict], str | None] | None = None, port: int = 0) -> None:
        super().__init__(("127.0.0.1", port), _Handler)
        self.respond = respond
        self.calls: list[dict] = []
        self.scripts: list[Script] = []
        self.behaviour = "ok"  # ok | slow | garbage | malformed | error | unauthorized
        #: golden synth: every Nth passage (by a hash of its text) gets a fault, cycling SYNTH_FAULTS; 0 = none
        self.synth_fault_every = 0
        self.synth_faults: list[tuple[str, str]] = []  # (text in the prompt, fault), see synth_fault
        #: after this many chat requests every further one gets an HTTP 500 (an endpoint dying midway)
        self.fail_after: int | None = None
        self.delay_s = 0.0
        self.lock = threading.Lock()
        self._thread: threading.Thread | None = None

    # -- test controls --------------------------------------------------------------------------

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}/v1"

    def env(self) -> dict[str, str]:
        return {
            "WORKBENCH_LLM_BASE_URL": self.base_url,
            "WORKBENCH_LLM_MODEL": FAKE_MODEL,
            "WORKBENCH_LLM_API_KEY": "",
            "OPENAI_BASE_URL": "",
            "OPENAI_API_KEY": "",
        }

    def script(self, contains: str, reply: str, purpose: str | None = None) -> None:
        """Reply ``reply`` to any prompt (of ``purpose``, if given) whose user message contains ``contains``."""
        self.scripts.append(Script(contains, reply, purpose))

    def synth_fault(self, contains: str, fault: str) -> None:
        """Make golden-synth replies to prompts containing ``contains`` go wrong: one of SYNTH_FAULTS."""
        assert fault in SYNTH_FAULTS, fault
        self.synth_faults.append((contains, fault))

    def count(self, path: str | None = None, purpose: str | None = None) -> int:
        with self.lock:
            return sum(
                1
                for c in self.calls
                if (path is None or c["path"].endswith(path)) and (purpose is None or c["purpose"] == purpose)
            )

    def purposes(self) -> dict[str, int]:
        counts: dict[str, int] = {}
        with self.lock:
            for call in self.calls:
                counts[call["purpose"]] = counts.get(call["purpose"], 0) + 1
        return counts

    def reset(self) -> None:
        with self.lock:
            self.calls.clear()

    def start(self) -> FakeOpenAI:
        self._thread = threading.Thread(target=self.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self.shutdown()
        self.server_close()

    def __enter__(self) -> FakeOpenAI:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()

    # -- replies --------------------------------------------------------------------------------

    def chat_reply(self, messages: list[dict]) -> tuple[str, str]:
        system = next((text_of(m["content"]) for m in messages if m.get("role") == "system"), "")
        user = next((text_of(m["content"]) for m in reversed(messages) if m.get("role") == "user"), "")
        purpose = next((p for prefix, p in PURPOSES.items() if system.startswith(prefix)), "unknown")
        for script in reversed(self.scripts):
            if script.contains in user and script.purpose in (None, purpose):
                return purpose, script.reply
        if purpose.startswith("golden.synth."):
            return purpose, synth_reply(purpose.removeprefix("golden.synth."), user, self._synth_fault(user))
        return purpose, default_reply(purpose, system, user)

    def _synth_fault(self, user: str) -> str:
        for contains, fault in reversed(self.synth_faults):
            if contains in user:
                return fault
        if self.synth_fault_every:
            digest = int(hashlib.md5(user.encode("utf-8")).hexdigest(), 16)
            if digest % self.synth_fault_every == 0:
                return SYNTH_FAULTS[(digest // self.synth_fault_every) % len(SYNTH_FAULTS)]
        return ""


def images_of(body: dict) -> list[bytes]:
    """The images a request's ``image_url`` data-URL parts carry."""
    images = []
    for message in body.get("messages", []):
        content = message.get("content")
        for part in content if isinstance(content, list) else []:
            url = (part.get("image_url") or {}).get("url", "") if isinstance(part, dict) else ""
            if url.startswith("data:") and ";base64," in url:
                images.append(base64.b64decode(url.split(";base64,", 1)[1]))
    return images


class _Handler(BaseHTTPRequestHandler):
    server: FakeOpenAI

    def do_POST(self):
        length = int(self.headers.get("Content-Length", 0))
        body = json.loads(self.rfile.read(length) or b"{}")
        server = self.server
        request = {
            "path": self.path,
            "body": body,
            "images": images_of(body),
            "authorization": self.headers.get("Authorization"),
        }
        if self.path.endswith("/chat/completions"):
            if server.respond is not None:
                purpose, reply = "scripted", server.respond(request)
            else:
                purpose, reply = server.chat_reply(body.get("messages", []))
        elif self.path.endswith("/embeddings"):
            purpose, reply = "embeddings", ""
        else:
            self._send(404, {"error": {"message": f"no route {self.path}"}})
            return
        with server.lock:
            server.calls.append({**request, "purpose": purpose})
            chats = sum(1 for c in server.calls if c["path"].endswith("/chat/completions"))
        if server.fail_after is not None and purpose != "embeddings" and chats > server.fail_after:
            reply = None
        if reply is None:
            self._send(500, {"error": {"message": "no scripted reply"}})
            return
        if server.behaviour == "slow" or server.delay_s:
            time.sleep(server.delay_s or 5.0)
        if server.behaviour == "error":
            self._send(500, {"error": {"message": "the fake model is down"}})
            return
        if server.behaviour == "unauthorized":  # as some servers do: the rejected key echoed back
            key = (request["authorization"] or "").removeprefix("Bearer ")
            self._send(401, {"error": {"message": f"Incorrect API key provided: {key}"}})
            return
        if server.behaviour == "malformed":
            self._send_raw(200, b"<html>not an API</html>")
            return
        if purpose == "embeddings":
            inputs = body.get("input", [])
            inputs = [inputs] if isinstance(inputs, str) else inputs
            data = [
                {"object": "embedding", "index": i, "embedding": hashed_embedding(text)}
                for i, text in enumerate(inputs)
            ]
            used = sum(token_count(text) for text in inputs)
            self._send(
                200,
                {
                    "object": "list",
                    "data": data,
                    "model": body.get("model"),
                    "usage": {"prompt_tokens": used, "total_tokens": used},
                },
            )
            return
        if server.behaviour == "garbage":
            reply = "{{{ ??? }}} ..."
        prompt_tokens = sum(token_count(text_of(m.get("content", ""))) for m in body.get("messages", []))
        completion_tokens = token_count(reply)
        self._send(
            200,
            {
                "id": f"fake-{len(server.calls)}",
                "object": "chat.completion",
                "model": body.get("model", FAKE_MODEL),
                "choices": [{"index": 0, "message": {"role": "assistant", "content": reply}, "finish_reason": "stop"}],
                "usage": {
                    "prompt_tokens": prompt_tokens,
                    "completion_tokens": completion_tokens,
                    "total_tokens": prompt_tokens + completion_tokens,
                },
            },
        )

    def _send(self, status: int, payload: dict) -> None:
        self._send_raw(status, json.dumps(payload, ensure_ascii=False).encode("utf-8"))

    def _send_raw(self, status: int, raw: bytes) -> None:
        try:
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(raw)))
            self.end_headers()
            self.wfile.write(raw)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up (a timeout test)

    def log_message(self, *args):
        pass


def main(argv: list[str] | None = None) -> None:
    """Start the server by hand: ``python -m tests.fake_openai [--port 8765] [--synth-faults 5]``."""
    import argparse

    parser = argparse.ArgumentParser(description="the tests' fake OpenAI-compatible endpoint, on 127.0.0.1")
    parser.add_argument("--port", type=int, default=0, help="port to listen on (default: any free one)")
    parser.add_argument(
        "--synth-faults",
        type=int,
        default=0,
        metavar="N",
        help="golden synth: every Nth passage gets a bad reply (malformed, unfound quote, ...)",
    )
    args = parser.parse_args(argv)
    try:
        server = FakeOpenAI(port=args.port)
    except OSError as error:
        raise SystemExit(
            f"error: cannot listen on 127.0.0.1:{args.port} ({error.strerror}); pick another --port, "
            "or --port 0 for any free one"
        ) from None
    server.synth_fault_every = args.synth_faults
    print(f"export WORKBENCH_LLM_BASE_URL={server.base_url} WORKBENCH_LLM_MODEL={FAKE_MODEL}", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()

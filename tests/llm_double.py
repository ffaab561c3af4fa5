"""A scripted OpenAI-compatible test double: an HTTP server on loopback answering
/v1/chat/completions by prompt kind, with per-test overrides (including malformed output).

The kind comes from the pipeline stage the client sends in the ``X-Retag-Stage`` header,
never from the prompt's wording: editing or adding a prompt cannot reroute a test. The
stages are the package's one table (``neo4j_retag.stages.Stage``); a stage's kind is
its name unless ``KINDS`` names another (stages sharing a handler). Where one stage sends
two requests (a gleaning round and its continue question; the personas, tasks and questions
of eval generation) the request's shape tells them apart: the JSON it asks for, not the
words it uses. A request without the header, with a name that is no stage, or with a stage
whose kind has no handler, is answered HTTP 400 naming the problem, so it fails the test
loudly (the client itself refuses a name that is no stage before sending: ``stage_of``).
Each handler gets the request body and returns the completion text (or raises
``Fail(status)`` to answer with an HTTP error).
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
import struct
import threading
from collections import Counter
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from neo4j_retag.llm.transport import STAGE_HEADER
from neo4j_retag.stages import Stage


def _asked_fields(body: dict[str, Any]) -> list[str]:
    """The top-level fields of the JSON schema a request asks for ([] for free text)."""
    fmt = body.get("response_format") or {}
    schema = fmt.get("json_schema", {}).get("schema") or fmt.get("schema") or {}
    return list(schema.get("properties") or {})


def _glean_or_loop(body: dict[str, Any]) -> str:
    # a gleaning round asks for the extraction's JSON; the continue question for a YES/NO
    return "glean" if _asked_fields(body) else "loop"


def _eval_list(body: dict[str, Any]) -> str:
    # personas, tasks and questions each ask for a JSON list named after them
    asked = _asked_fields(body)
    return asked[0] if asked else "text"


# the double's kind of each stage whose kind is not its own name
KINDS: dict[Stage, str | Callable[[dict[str, Any]], str]] = {
    Stage.GLEAN: _glean_or_loop,
    Stage.TOPIC_SUMMARY: "summarize",  # the corpus description (index/topics.py, issue 18)
    Stage.REDUCE_PARTIAL: "reduce",  # the hierarchical reduce's partial reduces
    Stage.REFINE_CHECK: "refine",
    Stage.TOPICS: "topics_list",
    Stage.TOPIC_ASSIGN: "assign",
    Stage.TOPIC_TITLE: "report_title",  # a topic's name over its best evidence sentences
    Stage.TOPIC_REPORT_TITLE: "report_title",  # a topic community's report title
    Stage.LAZY_REPORT: "report",
    Stage.EVAL_JUDGE: "judge",
    Stage.EVAL_QUESTIONS: _eval_list,
    Stage.DOCTOR: "text",
    Stage.PROBE: "text",
    Stage.ANSWER_CHECK_COLLECT: "answer",
    # /v1/embeddings (llm/embeddings.py): answered by ScriptedLLM.embed, one text at a time
    Stage.EMBED_QUERY: "embed",
    Stage.NUGGET_EMBED: "embed",
}
# every pipeline stage (llm.complete / llm.structured ``stage=``) -> the double's kind
STAGES: dict[str, str | Callable[[dict[str, Any]], str]] = {
    s.value: KINDS.get(s, s.value) for s in Stage}


class Fail(Exception):
    def __init__(self, status: int = 500, body: dict[str, Any] | None = None,
                 headers: dict[str, str] | None = None) -> None:
        self.status = status
        self.body = body or {"error": {"message": "scripted failure"}}
        self.headers = headers or {}


class Raw:
    """A handler's answer sent as is: any HTTP-200 body (an error object, no choices ...)."""

    def __init__(self, body: Any) -> None:
        self.body = body


class Reply(str):
    """A handler's answer text with envelope details: finish_reason, usage (None = none)."""

    finish_reason = "stop"
    usage: dict[str, int] | None | bool = True

    def __new__(cls, text: str, finish_reason: str = "stop",
                usage: dict[str, int] | None | bool = True) -> Reply:
        obj = super().__new__(cls, text)
        obj.finish_reason, obj.usage = finish_reason, usage
        return obj


def kind_of(body: dict[str, Any], stage: str | None) -> str:
    """The double's kind for a request of ``stage`` (see the module doc)."""
    if not stage:
        raise Fail(400, {"error": {"message": f"llm_double: no {STAGE_HEADER} header: "
                                              "every LLM call must name its stage"}})
    if stage not in STAGES:
        raise Fail(400, {"error": {"message": f"llm_double: {stage!r} is no stage of "
                                              "neo4j_retag.stages.Stage"}})
    kind = STAGES[stage]
    return kind(body) if callable(kind) else kind


def _text_block(body: dict[str, Any]) -> str:
    joined = "\n".join(m["content"] for m in body["messages"])
    m = re.search(r"<text>\n(.*?)\n</text>", joined, re.S)
    return m.group(1) if m else joined


def names_in(text: str, limit: int = 6) -> list[str]:
    """Capitalised words, most frequent first: the double's 'entities'."""
    words = re.findall(r"\b([A-Z][a-z]{2,})\b", text)
    stop = {"The", "And", "But", "His", "Her", "She", "They", "This", "That", "When", "What",
            "There", "Then", "With", "Ignore", "Answer"}
    counts = Counter(w for w in words if w not in stop)
    return [w for w, _ in counts.most_common(limit)]


def _asks_rows(body: dict[str, Any]) -> bool:
    """Whether the extraction asks for rows (a selecting model's form: names, types and
    sentence numbers, index/extract_evidence.py) rather than GraphRAG's objects."""
    fmt = body.get("response_format") or {}
    schema = fmt.get("json_schema", {}).get("schema") or fmt.get("schema") or {}
    items = ((schema.get("properties") or {}).get("entities") or {}).get("items") or {}
    return "prefixItems" in items


def selected_extract(body: dict[str, Any]) -> str:
    """A selecting model's reply: the names of the numbered sentences, each with the
    numbers of the sentences naming it; pairs of names that share a sentence."""
    text = _text_block(body)
    lines = dict(re.findall(r"^\[(\d+)\] (.*)$", text, re.M))
    names = names_in(text)
    cited = {n: [int(k) for k, line in lines.items() if n in line][:3] or [1] for n in names}
    ents = [[n, "person" if i % 2 else "organization", cited[n]] for i, n in enumerate(names)]
    rels = [[a, b, sorted(set(cited[a]) & set(cited[b])) or cited[a][:1]]
            for a, b in zip(names, names[1:], strict=False)]
    out: dict[str, Any] = {"entities": ents, "relationships": rels}
    if "claims" in _asked_fields(body) and names:
        out["claims"] = [[names[0], cited[names[0]][:1]]]
    return json.dumps(out)


def default_title(body: dict[str, Any]) -> str:
    """A report's title: the first two names of its sentences."""
    names = names_in(_text_block(body), 2)
    return " and ".join(names) or "Untitled"


def default_extract(body: dict[str, Any]) -> str:
    if _asks_rows(body):
        return selected_extract(body)
    names = names_in(_text_block(body))
    ents = [{"name": n, "type": "person" if i % 2 else "organization",
             "description": f"{n} appears in the text."} for i, n in enumerate(names)]
    rels = [{"source": a, "target": b, "description": f"{a} and {b} appear together.",
             "strength": 7} for a, b in zip(names, names[1:], strict=False)]
    out: dict[str, Any] = {"entities": ents, "relationships": rels}
    if "claims" in _asked_fields(body) and names:
        out["claims"] = [{"subject": names[0], "object": "", "type": "mention",
                          "status": "TRUE", "description": f"{names[0]} is mentioned.",
                          "source_quote": names[0]}]
    return json.dumps(out)


def default_claims(body: dict[str, Any]) -> str:
    names = names_in(_text_block(body), 2)
    return json.dumps({"claims": [{"subject": n, "object": "", "type": "MENTION", "status": "TRUE",
                                   "start_date": None, "end_date": None,
                                   "description": f"{n} is mentioned.", "source_quote": n}
                                  for n in names]})


def default_report(body: dict[str, Any]) -> str:
    names = names_in(body["messages"][-1]["content"], 3) or ["Community"]
    return json.dumps({"title": " and ".join(names), "summary": f"About {', '.join(names)}.",
                       "rating": 5, "rating_explanation": "moderate",
                       "findings": [{"summary": f"{n} matters", "explanation": f"{n} is here."}
                                    for n in names]})


WORDS = re.compile(r"[^\W_]+")


def default_map(body: dict[str, Any]) -> str:
    """A point per report (3 at most), quoting a few words of its row: grounded in the batch,
    as a real map point is (an ungrounded one is degenerate, checks.degenerate)."""
    rows = re.findall(r"^(\d+),(.*)$", body["messages"][-1]["content"], re.M)
    def quote(row: str) -> str:
        return " ".join(WORDS.findall(row)[:8])
    return json.dumps({"points": [
        {"description": f"Point from report {i}: {quote(row)} [Data: Reports ({i})]",
         "score": 50 + int(i) % 40, "reports": [int(i)]} for i, row in rows[:3]]})


def default_reduce(body: dict[str, Any]) -> str:
    # every id of every reference: a partial reduce's answer cites several in one
    ids = [x.strip() for ref in re.findall(r"Reports \(([\d, ]+)\)",
                                           body["messages"][-1]["content"])
           for x in ref.split(",") if x.strip()]
    return "The main themes are what the reports say. " + (
        f"[Data: Reports ({', '.join(dict.fromkeys(ids))})]" if ids else "")


def default_classify(body: dict[str, Any]) -> str:
    topics = re.findall(r"^- ([^:\n]+):", body["messages"][0]["content"], re.M)
    q = body["messages"][-1]["content"].lower()
    hits = [t for t in topics if t.split()[0].lower() in q]
    return json.dumps({"topics": hits[:1]})


GLOBAL_WORDS = ("theme", "main", "overall", "across", "connect", "trend", "whole", "common")


def default_route(body: dict[str, Any]) -> str:
    """``--method auto``'s decision: global when the question has a word of the corpus as a
    whole, else specific."""
    q = body["messages"][-1]["content"].lower()
    kind = "global" if any(w in q for w in GLOBAL_WORDS) else "specific"
    return json.dumps({"kind": kind, "reason": f"the double says {kind}"})


def default_assign(body: dict[str, Any]) -> str:
    topics = re.findall(r"^- ([^:\n]+):", body["messages"][0]["content"], re.M)
    passages = [f for f in _asked_fields(body) if f.startswith("passage_")]
    if passages:  # a batch (index/topic_assign.py): the first topic for each passage
        return json.dumps({p: topics[:1] for p in passages})
    return json.dumps({"topics": topics[:1]})


def default_questions(body: dict[str, Any]) -> str:
    task = re.search(r"Their task: (.*)", body["messages"][-1]["content"])
    about = f", for {task.group(1).strip()}" if task else ""
    return json.dumps({"questions": [f"What are the themes{about}?",
                                     f"Who matters most{about}?"]})


def default_tasks(body: dict[str, Any]) -> str:
    persona = re.search(r"The user: (.*)", body["messages"][-1]["content"])
    who = persona.group(1).split()[1] if persona else "user"
    return json.dumps({"tasks": [f"task {i} of the {who}" for i in (1, 2, 3)]})


def default_eval_claims(body: dict[str, Any]) -> str:
    """Each sentence of the answer is a claim (citation markers dropped)."""
    answer = body["messages"][-1]["content"].split("Answer:", 1)[-1]
    answer = re.sub(r"\[Data:[^\]]*\]", "", answer)
    return json.dumps({"claims": [s.strip() for s in re.split(r"(?<=[.!?])\s+", answer)
                                  if len(s.strip()) > 3]})


def default_lazy_claims(body: dict[str, Any]) -> str:
    """One claim per passage: its first capitalised names."""
    rows = re.findall(r"^(\d+),[^,]*,(.*)$", body["messages"][-1]["content"], re.M)
    return json.dumps({"claims": [{"statement": f"Passage {i} is about "
                                   f"{' and '.join(names_in(text, 2)) or 'something'}.",
                                   "sources": [int(i)]} for i, text in rows]})


def default_lazy_answer(body: dict[str, Any]) -> str:
    ids = re.findall(r"^\d+,.*,([\d; ]+)$", body["messages"][-1]["content"], re.M)
    cited = list(dict.fromkeys(x.strip() for group in ids for x in group.split(";")))[:5]
    return "The passages tell these stories. " + (
        f"[Data: Sources ({', '.join(cited)})]" if cited else "")


def _table_ids(body: dict[str, Any], table: str) -> list[str]:
    """The ids of the rows of one ``-----Table-----`` CSV block of the last message."""
    m = re.search(rf"-----{table}-----\n[^\n]*\n(.*?)(?=\n-----|\Z)",
                  body["messages"][-1]["content"], re.S)
    return re.findall(r"^(\d+),", m.group(1), re.M) if m else []


def default_drift_primer(body: dict[str, Any]) -> str:
    """An intermediate answer citing the fold's first two reports; follow-ups about the
    names in them."""
    ids = _table_ids(body, "Reports")[:2]
    names = names_in(body["messages"][-1]["content"], 3)
    return json.dumps({"intermediate_answer": "## The reports\nThey tell of " + (
        ", ".join(names) or "nothing") + (f". [Data: Reports ({', '.join(ids)})]" if ids else ""),
        "score": 60, "follow_up_queries": [f"Who is {n}?" for n in names]})


def default_drift_local(body: dict[str, Any]) -> str:
    """A response citing the first source and report of its context; follow-ups about the
    names in the context."""
    src, rep = _table_ids(body, "Sources")[:1], _table_ids(body, "Reports")[:1]
    cites = "; ".join(p for p in (f"Sources ({src[0]})" if src else "",
                                  f"Reports ({rep[0]})" if rep else "") if p)
    names = names_in(body["messages"][-1]["content"], 2)
    return json.dumps({"response": f"The data names {', '.join(names) or 'no one'}."
                       + (f" [Data: {cites}]" if cites else ""),
                       "score": 40, "follow_up_queries": [f"What did {n} do?" for n in names]})


def default_drift_reduce(body: dict[str, Any]) -> str:
    """The names of the intermediate answers and every marker of them, repeated."""
    markers = re.findall(r"\[Data: [^\]]*\]", body["messages"][-1]["content"])
    names = names_in(re.sub(r"\[Data: [^\]]*\]|-[A-Z][a-z ]+-", "",
                            body["messages"][-1]["content"]), 3)
    return (f"The search found {', '.join(names) or 'this'}. "
            + " ".join(dict.fromkeys(markers)))


DEFAULTS: dict[str, Callable[[dict[str, Any]], str]] = {
    "extract": default_extract,
    "claims": default_claims,
    "glean": lambda b: json.dumps({"entities": [], "relationships": []}),
    "loop": lambda b: "NO",
    "summarize": lambda b: "A merged description.",
    "report": default_report,
    "report_title": default_title,
    "map": default_map,
    "reduce": default_reduce,
    "classify": default_classify,
    "route": default_route,
    "keywords": lambda b: json.dumps({"keywords": ["ghost", "Christmas"]}),
    "refine": lambda b: json.dumps({"complete": False, "missing": "more on Belle",
                                    "keywords": ["Belle", "Fezziwig"]}),
    "judge": lambda b: json.dumps({"reasoning": "longer", "winner": 1 if len(
        b["messages"][-1]["content"].split("Answer 2:")[0]) > len(
        b["messages"][-1]["content"].split("Answer 2:")[1]) else 2}),
    "questions": default_questions,
    "personas": lambda b: json.dumps({"personas": ["A historian of Victorian London",
                                                   "A teacher planning a lesson",
                                                   "A novelist"]}),
    "tasks": default_tasks,
    "eval_claims": default_eval_claims,
    "rate": lambda b: json.dumps({"rating": 3, "reason": "relevant"}),
    "answer": lambda b: "Scrooge met the spirits. [Data: Sources (0, 99)] [Data: Reports (1)]",
    "assign": default_assign,
    "relevance": lambda b: "Y",  # one letter: the test asks for one token
    "lazy_claims": default_lazy_claims,
    "lazy_subqueries": lambda b: json.dumps({"queries": ["harbour", "festival"]}),
    "lazy_answer": default_lazy_answer,
    "drift_hyde": lambda b: "A ghost story: Scrooge, the spirits and Christmas.",
    "drift_primer": default_drift_primer,
    "drift_local": default_drift_local,
    "drift_reduce": default_drift_reduce,
    "topics_list": lambda b: json.dumps({"topics": [
        {"name": "Ghosts and spirits", "description": "the supernatural visitors"},
        {"name": "Money and business", "description": "trade, debt and work"}]}),
    "topic_split": lambda b: json.dumps({"topics": [
        {"name": "Marley and the three spirits", "description": "the night's visitors"},
        {"name": "Scrooge's counting-house", "description": "Scrooge at work with his clerk"}]}),
    "text": lambda b: ('{"ok": true}' if b.get("response_format") else
                       "- Ghosts and spirits: the visitors\n- Money and business: trade"),
}


EMBED_DIM = 32
_WORD = re.compile(r"[a-z0-9]+")


def default_embed(text: str) -> list[float]:
    """A bag of words hashed into EMBED_DIM buckets, unit length (zero text: a fixed
    vector): texts sharing words are near, others are not; deterministic across runs."""
    v = [0.0] * EMBED_DIM
    for w in _WORD.findall(text.lower()):
        h = int.from_bytes(hashlib.md5(w.encode()).digest()[:4], "little")
        v[h % EMBED_DIM] += 1.0 if h & 1 << 31 else -1.0
    norm = sum(x * x for x in v) ** 0.5
    return [x / norm for x in v] if norm else [1.0] + [0.0] * (EMBED_DIM - 1)


class ScriptedLLM:
    """Start with ``start()``; ``base_url`` then points at it. ``script[kind] = fn`` overrides."""

    def __init__(self) -> None:
        self.script: dict[str, Callable[[dict[str, Any]], str]] = dict(DEFAULTS)
        # text -> vector for /v1/embeddings (may raise Fail); script["embed"] = fn(body) -> a
        # whole body (Raw) or Fail overrides the request instead
        self.embed: Callable[[str], list[float]] = default_embed
        self.calls: list[tuple[str, dict[str, Any]]] = []
        # GET /props (llama.cpp's server settings): None answers 404, as other servers do
        self.props: dict[str, Any] | None = None
        self.gets: list[str] = []  # each GET's path
        self.headers: list[str] = []  # each request's X-Retag-Stage, as sent
        self.lock = threading.Lock()
        self.server: ThreadingHTTPServer | None = None

    def count(self, kind: str | None = None) -> int:
        return sum(1 for k, _ in self.calls if kind is None or k == kind)

    def start(self) -> str:
        double = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *a: Any) -> None:
                pass

            def _send(self, status: int, payload: Any,
                      headers: dict[str, str] | None = None) -> None:
                data = json.dumps(payload).encode()
                self.send_response(status)
                for k, v in (headers or {}).items():
                    self.send_header(k, v)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def _stream(self, body: dict[str, Any], text: str, finish: str,
                        usage: Any) -> None:
                """SSE chunks of a few characters each, then the finish, then the usage."""
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.end_headers()

                def chunk(delta: dict[str, Any], reason: str | None = None,
                          use: Any = None) -> None:
                    c = {"id": "x", "object": "chat.completion.chunk", "created": 0,
                         "model": body["model"], "choices": [] if use else [
                             {"index": 0, "delta": delta, "finish_reason": reason}]}
                    if use:
                        c["usage"] = use
                    self.wfile.write(f"data: {json.dumps(c)}\n\n".encode())
                    self.wfile.flush()

                for piece in re.findall(r"\S+\s*|\s+", text):
                    chunk({"content": piece})
                chunk({}, finish)
                if usage and (body.get("stream_options") or {}).get("include_usage"):
                    chunk({}, use=usage)
                self.wfile.write(b"data: [DONE]\n\n")

            def _embeddings(self, body: dict[str, Any], kind: str) -> None:
                with double.lock:
                    double.calls.append((kind, body))
                if kind in double.script:  # a scripted whole reply (Raw) or failure (Fail)
                    reply = double.script[kind](body)
                    self._send(200, reply.body if isinstance(reply, Raw) else reply)
                    return
                texts = body["input"] if isinstance(body["input"], list) else [body["input"]]
                vectors = [double.embed(t) for t in texts]
                if body.get("dimensions"):
                    # shortened, as a model that can shorten does: never to all zeros
                    d = body["dimensions"]
                    vectors = [v[:d] if any(v[:d]) else [1.0] + [0.0] * (d - 1)
                               for v in vectors]
                if body.get("encoding_format") == "base64":  # little-endian float32, as OpenAI
                    vectors = [base64.b64encode(struct.pack(f"<{len(v)}f", *v)).decode()
                               for v in vectors]
                self._send(200, {"object": "list", "model": body["model"], "data": [
                    {"object": "embedding", "index": i, "embedding": v}
                    for i, v in enumerate(vectors)],
                    "usage": {"prompt_tokens": sum(len(t) // 4 + 1 for t in texts),
                              "total_tokens": sum(len(t) // 4 + 1 for t in texts)}})

            def do_GET(self) -> None:
                with double.lock:
                    double.gets.append(self.path)
                if self.path.endswith("/props"):
                    if double.props is None:
                        self._send(404, {"error": {"message": "File Not Found"}})
                    else:
                        self._send(200, double.props)
                    return
                self._send(200, {"object": "list", "data": [{"id": "double", "object": "model"}]})

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                stage = self.headers.get(STAGE_HEADER)
                with double.lock:
                    double.headers.append(stage or "")
                try:
                    kind = kind_of(body, stage)
                    if self.path.endswith("/embeddings"):  # every stage: kind "embed"
                        self._embeddings(body, "embed")
                        return
                    if kind not in double.script:
                        raise Fail(400, {"error": {"message": f"llm_double: stage {stage!r} "
                                                              f"(kind {kind!r}) has no reply"}})
                    with double.lock:
                        double.calls.append((kind, body))
                    text = double.script[kind](body)
                except Fail as f:
                    self._send(f.status, f.body, f.headers)
                    return
                if isinstance(text, Raw):
                    self._send(200, text.body)
                    return
                prompt = sum(len(m["content"]) for m in body["messages"]) // 4
                usage: Any = {"prompt_tokens": prompt, "completion_tokens": len(text) // 4,
                              "total_tokens": prompt + len(text) // 4}
                finish = "stop"
                if isinstance(text, Reply):
                    finish = text.finish_reason
                    usage = usage if text.usage is True else text.usage
                if body.get("stream"):
                    self._stream(body, str(text), finish, usage)
                    return
                payload = {
                    "id": "x", "object": "chat.completion", "created": 0, "model": body["model"],
                    "choices": [{"index": 0, "finish_reason": finish,
                                 "message": {"role": "assistant", "content": str(text)}}]}
                if usage:
                    payload["usage"] = usage
                self._send(200, payload)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        return self.base_url

    @property
    def base_url(self) -> str:
        assert self.server is not None
        return f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    def stop(self) -> None:
        if self.server:
            self.server.shutdown()
            self.server.server_close()

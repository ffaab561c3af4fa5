// The page at /: ask, watch the stages and the answer stream in (POST /ask/stream, read as
// server-sent events), open a cited report beside the answer. No framework, no build step.
// With SERVE_API_KEY set the page asks for the key once (POST /login); the server answers
// with a same-site HttpOnly session cookie, so the key is kept neither by the page nor in a URL.
// /health (open, no key) is read on load and every HEALTH_MS: a degraded service (Neo4j or the
// LLM endpoint down) shows as a warning above the question box until it is back.
"use strict";
const $ = (id) => document.getElementById(id);
const HEALTH_MS = 5000;
let degraded = false;

function headers(json) {
  return json ? { "Content-Type": "application/json" } : {};
}

function showLogin(message) {
  $("main").hidden = true;
  $("login").hidden = false;
  $("login-error").textContent = message || "";
  $("key").focus();
}

async function getJSON(url) {
  const r = await fetch(url, { headers: headers(false) });
  if (r.status === 401) {
    showLogin("the session ended: log in again");
    throw new Error("not logged in");
  }
  const body = await r.json();
  if (!r.ok) throw new Error(body.error || r.statusText);
  return body;
}

function el(tag, text, attrs) {
  const e = document.createElement(tag);
  if (text !== undefined) e.textContent = text;
  Object.assign(e, attrs || {});
  return e;
}

function describe(kind, d) {
  switch (kind) {
    case "classified": return `classified: ${d.kind} question -> ${d.method}` +
                              (d.reason ? ` (${d.reason})` : "");
    case "topic": return `topic: ${d.topic || "none (general graph)"}`;
    case "keywords": return `keywords: ${(d.keywords || []).join(", ") || "-"}`;
    case "retrieved": return "retrieved " + Object.entries(d)
        .filter(([k]) => !["method", "level"].includes(k)).map(([k, v]) => `${v} ${k}`)
        .join(", ");
    case "map": return `map batch ${d.batch}/${d.batches}: ${d.points} points`;
    case "reduce": return `reduce: ${d.points} points -> answer`;
    case "drift": return `drift round ${d.depth}: ${d.answered} follow-ups answered, ` +
                         `${d.pending} waiting`;
    default: return kind;
  }
}

function showEvent(kind, d) {
  const text = describe(kind, d);
  const items = $("events").children;
  const last = items[items.length - 1];
  if (kind === "map" && last && last.dataset.kind === "map") last.textContent = text;
  else {
    const li = el("li", text);
    li.dataset.kind = kind;
    $("events").append(li);
  }
}

async function openCitation(c) {
  const box = $("report-body");
  box.replaceChildren(el("p", "loading ...", { className: "muted" }));
  $("report").hidden = false;
  try {
    if (c.kind === "report") {
      const r = await getJSON(`/reports/${c.id}`);
      const parts = [el("h2", r.title, { id: "report-title" }),
                     el("p", `report ${r.id}, level ${r.level}` +
                        (r.rating != null ? `, rating ${r.rating}` : ""), { className: "muted" }),
                     el("p", r.summary)];
      for (const f of r.findings) {
        const div = el("div", undefined, { className: "finding" });
        div.append(el("h4", f.summary), el("p", f.explanation));
        parts.push(div);
      }
      const ul = el("ul", undefined, { className: "entities" });
      for (const e of r.entities) ul.append(el("li", `${e.name} (${e.type || "?"})`));
      parts.push(el("h3", `Entities (${r.entities.length})`), ul);
      box.replaceChildren(...parts);
    } else {
      const t = await getJSON(`/text-units/${encodeURIComponent(c.id)}`);
      box.replaceChildren(el("h2", t.title || t.path, { id: "report-title" }),
                          el("p", `text unit ${t.id}`, { className: "muted" }), el("p", t.text));
    }
  } catch (err) {
    box.replaceChildren(el("p", String(err.message || err), { className: "muted" }));
  }
}

function showFinal(a) {
  $("answer").textContent = a.answer;
  const cites = $("citations");
  cites.replaceChildren();
  for (const c of a.citations) {
    const label = c.kind === "report" ? `report ${c.id}` + (c.title ? `: ${c.title}` : "")
      : (c.location || `text unit ${c.id}` + (c.title ? `: ${c.title}` : ""));
    const link = el("a", label, { href: `#${c.kind}-${c.id}`, className: "citation" });
    link.addEventListener("click", (ev) => { ev.preventDefault(); openCitation(c); });
    cites.append(link);
  }
  const t = a.trace, llm = t.llm || {};
  $("cost").textContent = `${t.method}` + (t.routing && t.routing.kind ? ` (auto: ${t.routing.kind})` : "") +
    ` | ${llm.calls || 0} LLM calls (+${llm.cached || 0} cached) | ${llm.prompt_tokens || 0} prompt + ` +
    `${llm.completion_tokens || 0} completion tokens | ${(t.seconds.total || 0).toFixed(1)} s`;
}

async function ask(ev) {
  ev.preventDefault();
  for (const id of ["events", "citations"]) $(id).replaceChildren();
  for (const id of ["answer", "cost", "error"]) $(id).textContent = "";
  $("go").disabled = true;
  try {
    const r = await fetch("/ask/stream", {
      method: "POST", headers: headers(true),
      body: JSON.stringify({ question: $("question").value, method: $("method").value }),
    });
    if (r.status === 401) showLogin("the session ended: log in again");
    if (!r.ok) throw new Error((await r.json()).error || r.statusText);
    const reader = r.body.pipeThrough(new TextDecoderStream()).getReader();
    let buf = "";
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      buf += value.replace(/\r\n/g, "\n");
      let cut;
      while ((cut = buf.indexOf("\n\n")) >= 0) {
        const block = buf.slice(0, cut);
        buf = buf.slice(cut + 2);
        let kind = "message", data = "";
        for (const line of block.split("\n")) {
          if (line.startsWith("event:")) kind = line.slice(6).trim();
          else if (line.startsWith("data:")) data += line.slice(5).replace(/^ /, "");
        }
        if (!data) continue;
        const d = JSON.parse(data);
        if (kind === "token") {
          if (d.text === null) $("answer").textContent = "";
          else $("answer").textContent += d.text;
        } else if (kind === "answer") showFinal(d);
        else if (kind === "error") $("error").textContent = d.error;
        else showEvent(kind, d);
      }
    }
  } catch (err) {
    $("error").textContent = String(err.message || err);
  } finally {
    $("go").disabled = false;
  }
}

function loadCorpus() {
  getJSON("/topics").then((t) => {
    const topics = t.topics.map((x) => x.name).join(", ");
    $("corpus").classList.remove("corpus-error");
    $("corpus").textContent = (t.corpus_description || "no corpus description yet") +
      (topics ? ` | topics: ${topics}` : " | no topics (neo4j-retag topics build)");
  }).catch((err) => {
    if (!$("login").hidden) return;  // not logged in: the login form says so
    $("corpus").classList.add("corpus-error");
    $("corpus").textContent = `corpus unavailable: ${err.message || err}`;
  });
}

const SERVICES = { neo4j: "Neo4j", llm: "the LLM endpoint" };

function showHealth(text) {
  $("status").hidden = !text;
  $("status").textContent = text || "";
}

async function checkHealth() {
  let text;
  try {
    const h = await (await fetch("/health")).json();
    const down = Object.entries(SERVICES).filter(([k]) => h[k] && h[k] !== "ok")
      .map(([k, name]) => `${name}: ${h[k]}`);
    text = down.length ? `Service degraded - ${down.join("; ")}. Questions fail until ` +
      "it is back." : "";
  } catch (err) {
    text = `The server does not answer (${err.message || err}).`;
  }
  showHealth(text);
  if (degraded && !text && $("login").hidden) loadCorpus();  // back: the corpus line too
  degraded = Boolean(text);
}

async function login(ev) {
  ev.preventDefault();
  const r = await fetch("/login", {
    method: "POST", headers: headers(true), body: JSON.stringify({ key: $("key").value }),
  });
  $("key").value = "";
  if (!r.ok) {
    $("login-error").textContent = (await r.json()).error || r.statusText;
    return;
  }
  $("login").hidden = true;
  $("main").hidden = false;
  loadCorpus();
}

$("ask").addEventListener("submit", ask);
$("login").addEventListener("submit", login);
$("close").addEventListener("click", () => { $("report").hidden = true; });
fetch("/session").then((r) => r.json()).then((s) => {
  if (s.signed_in) loadCorpus();
  else showLogin();
}).catch(() => loadCorpus());
checkHealth();
setInterval(checkHealth, HEALTH_MS);

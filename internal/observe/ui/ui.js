// The web UI of a running pipeline: it reads /api/pipeline every two
// seconds and renders it. Every number is put in an element with an id and
// its exact value in data-value, so that a test (and a curious user) can
// read what is shown without parsing the formatted text.
"use strict";

const refreshMillis = 2000;

// ---- formatting ----

function integer(n) {
  return String(Math.round(n)).replace(/\B(?=(\d{3})+(?!\d))/g, ",");
}

function perSecond(n) {
  return n >= 100 ? integer(n) : n.toFixed(1);
}

function duration(ms) {
  if (ms >= 1000) return (ms / 1000).toFixed(2) + " s";
  return ms.toFixed(1) + " ms";
}

function bytes(n) {
  const units = ["B", "KiB", "MiB", "GiB", "TiB"];
  let i = 0;
  while (n >= 1024 && i < units.length - 1) { n /= 1024; i++; }
  return (i === 0 ? String(n) : n.toFixed(1)) + " " + units[i];
}

function clock(iso) {
  const d = new Date(iso);
  return isNaN(d) || d.getFullYear() < 2000 ? "—" : d.toLocaleTimeString();
}

// ---- DOM helpers ----

function el(tag, attrs, text) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v !== undefined && v !== null) e.setAttribute(k, v);
  }
  if (text !== undefined) e.textContent = text;
  return e;
}

// cell is a table cell showing text, with value as its data-value when it
// is a number someone may want to read back.
function cell(text, opts) {
  const o = opts || {};
  return el("td", { id: o.id, class: o.cls, "data-value": o.value, title: o.title }, text);
}

function numberCell(id, value, format) {
  if (value === null || value === undefined) return cell("—", { id: id, cls: "num", value: "" });
  return cell((format || integer)(value), { id: id, cls: "num", value: String(value) });
}

function fillRows(tbody, rows, columns, emptyText) {
  const body = document.getElementById(tbody);
  body.replaceChildren();
  if (rows.length === 0) {
    const td = cell(emptyText, { cls: "empty" });
    td.colSpan = columns;
    body.append(el("tr", {}, undefined));
    body.lastChild.append(td);
    return;
  }
  for (const r of rows) body.append(r);
}

function row(attrs, cells) {
  const tr = el("tr", attrs);
  tr.append(...cells);
  return tr;
}

function setNumber(id, value, text) {
  const e = document.getElementById(id);
  e.dataset.value = String(value);
  e.textContent = text === undefined ? integer(value) : text;
}

// ---- sections ----

function renderHeader(v) {
  document.title = v.pipeline + " · wasmstream";
  document.getElementById("pipeline-name").textContent = v.pipeline;
  const state = document.getElementById("pipeline-state");
  state.dataset.state = v.state;
  state.textContent = v.state.replace("_", " ");
  document.getElementById("pipeline-reason").textContent = v.reason || "";
  const at = document.getElementById("updated-at");
  at.dateTime = v.time;
  at.textContent = clock(v.time);
}

function renderSources(v) {
  fillRows("sources", v.sources.map((s) => {
    const id = "source-" + s.name + "-";
    return row({ "data-source": s.name }, [
      cell(s.name), cell(s.stream), cell(s.subject || "every subject", { cls: s.subject ? undefined : "empty" }),
      numberCell(id + "records_in", s.records_in),
      numberCell(id + "records_per_sec", s.records_per_sec, perSecond),
      numberCell(id + "pending", s.pending),
      numberCell(id + "position", s.position),
      numberCell(id + "replayed", s.replayed),
    ]);
  }), 8, "no sources");
}

function stateVersions(op) {
  const names = Object.keys(op.state_versions).sort();
  const parts = names.map((n) => n + " v" + op.state_versions[n]);
  if (op.state_version) parts.unshift("state_version " + op.state_version);
  return parts.join(", ") || "—";
}

function renderOperators(v) {
  fillRows("operators", v.operators.map((op) => {
    const id = "operator-" + op.name + "-";
    const module = op.module.split("/").pop();
    return row({ "data-operator": op.name }, [
      cell(op.name), cell(module, { title: op.module }),
      cell(op.module_sha256.slice(0, 12), { id: id + "module_sha256", value: op.module_sha256, title: op.module_sha256 }),
      numberCell(id + "module_bytes", op.module_bytes, bytes),
      cell(op.tasks + " / " + op.parallelism, { id: id + "tasks", cls: "num", value: String(op.tasks) }),
      cell(stateVersions(op), { id: id + "state_versions" }),
      numberCell(id + "records_processed", op.records_processed),
      numberCell(id + "records_per_sec", op.records_per_sec, perSecond),
      numberCell(id + "outputs_emitted", op.outputs_emitted),
      numberCell(id + "instance_restarts", op.instance_restarts),
      numberCell(id + "dead_letters", op.dead_letters),
    ]);
  }), 11, "no operators");
}

function renderCheckpoints(c) {
  setNumber("checkpoints-completed", c.completed);
  setNumber("checkpoints-failed", c.failed);
  setNumber("checkpoints-failed-outage", c.failed_outage);
  setNumber("checkpoints-last-id", c.last_id, c.last_id ? String(c.last_id) : "none");
  fillRows("checkpoints", c.history.map((k) => {
    const id = "checkpoint-" + k.id + "-";
    return row({ "data-checkpoint": String(k.id) }, [
      cell(String(k.id), { id: id + "id", cls: "num", value: String(k.id) }),
      cell(clock(k.completed), { title: k.completed }),
      numberCell(id + "duration_ms", k.duration_ms, duration),
      numberCell(id + "max_pause_ms", k.max_pause_ms, duration),
      numberCell(id + "alignment_ms", k.alignment_ms, duration),
      numberCell(id + "bytes_total", k.bytes_total, bytes),
      numberCell(id + "bytes_new", k.bytes_new, bytes),
      cell(k.mode || "—", { id: id + "mode", value: k.mode }),
    ]);
  }), 8, "no checkpoint completed yet");
}

function renderDeadLetters(v) {
  const counts = [];
  for (const op of v.operators) {
    for (const reason of Object.keys(op.dead_letters_by_reason).sort()) {
      counts.push(row({ "data-operator": op.name, "data-reason": reason }, [
        cell(op.name), cell(reason),
        numberCell("dead-" + op.name + "-" + reason, op.dead_letters_by_reason[reason]),
      ]));
    }
  }
  fillRows("dead-letter-counts", counts, 3, "no dead letters since the pipeline started");

  const d = v.dead_letters;
  const error = document.getElementById("dead-letters-error");
  error.hidden = !d.read_error;
  error.textContent = d.read_error ? "could not read them all: " + d.read_error : "";
  fillRows("dead-letters", d.recent.map((m) => row({ "data-stream-sequence": String(m.stream_sequence) }, [
    cell(clock(m.time), { title: m.time }),
    cell(m.operator),
    cell(m.source_stream + " #" + m.source_sequence, { value: String(m.source_sequence) }),
    cell(m.error, { cls: "wrap" }),
  ])), 4, "none stored");
}

function renderSinks(v) {
  fillRows("sinks", v.sinks.map((s) => row({ "data-sink": s.name }, [cell(s.name), cell(s.subject), cell(s.mode)])), 3, "no sinks");
}

// ---- graph ----

const svgNS = "http://www.w3.org/2000/svg";
const node = { width: 210, height: 54, gap: 22 };
const graphTop = 28; // room for the column titles

function svg(tag, attrs, text) {
  const e = document.createElementNS(svgNS, tag);
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
  if (text !== undefined) e.textContent = text;
  return e;
}

// graphColumns are the nodes of the graph, one column per kind.
function graphColumns(v) {
  return [
    { title: "sources", kind: "source", nodes: v.sources.map((s) => ({ name: s.name, detail: s.stream + (s.subject ? " · " + s.subject : "") })) },
    { title: "operators", kind: "operator", nodes: v.operators.map((o) => ({ name: o.name, detail: o.tasks + " of " + o.parallelism + " tasks · " + o.module_sha256.slice(0, 8) })) },
    { title: "sinks", kind: "sink", nodes: v.sinks.map((s) => ({ name: s.name, detail: s.subject + " · " + s.mode })) },
  ];
}

function edgeLabel(e) {
  if (e.records === null) return "outputs not counted per sink";
  let label = integer(e.records) + " · " + perSecond(e.records_per_sec) + "/s";
  if (e.pending !== undefined && e.pending !== null) label += " · lag " + integer(e.pending);
  return label;
}

function renderGraph(v) {
  const g = document.getElementById("graph");
  const width = Math.max(g.clientWidth || 900, 3 * node.width + 2 * 120);
  const columns = graphColumns(v);
  const rows = Math.max(1, ...columns.map((c) => c.nodes.length));
  const height = graphTop + rows * (node.height + node.gap) - node.gap + 4;
  g.setAttribute("viewBox", "0 0 " + width + " " + height);
  g.setAttribute("height", height);
  g.replaceChildren();

  const step = (width - node.width) / 2;
  const places = {};
  columns.forEach((c, i) => {
    const x = i * step;
    g.append(svg("text", { class: "column", x: x, y: 14 }, c.title));
    c.nodes.forEach((n, j) => {
      const y = graphTop + j * (node.height + node.gap);
      places[c.kind + ":" + n.name] = { x: x, y: y };
      const box = svg("g", { class: "node " + c.kind, "data-node": c.kind + ":" + n.name });
      box.append(svg("rect", { x: x + 1, y: y, width: node.width - 2, height: node.height }));
      box.append(svg("text", { class: "title", x: x + 12, y: y + 21 }, n.name));
      box.append(svg("text", { class: "detail", x: x + 12, y: y + 40 }, n.detail));
      g.append(box);
    });
  });
  for (const e of v.edges) {
    const from = places[e.from], to = places[e.to];
    if (from && to) g.prepend(edge(e, from, to));
  }
}

function edge(e, from, to) {
  const x1 = from.x + node.width, y1 = from.y + node.height / 2;
  const x2 = to.x, y2 = to.y + node.height / 2;
  const mid = (x1 + x2) / 2;
  const group = svg("g", { class: "edge", "data-from": e.from, "data-to": e.to });
  group.append(svg("path", { d: `M${x1},${y1} C${mid},${y1} ${mid},${y2} ${x2 - 2},${y2}`, "marker-end": "url(#arrow)" }));
  const label = edgeLabel(e);
  // Inputs converge on an operator and outputs fan out from it: a label
  // near the end that is not shared keeps the labels of a fan apart.
  const at = e.from.startsWith("source:") ? 0.22 : 0.78;
  const lx = bezier(at, x1, mid, mid, x2), ly = bezier(at, y1, y1, y2, y2) - 6;
  group.append(svg("rect", { class: "label-bg", x: lx - label.length * 3.1 - 4, y: ly - 11, width: label.length * 6.2 + 8, height: 15, rx: 3 }));
  group.append(svg("text", {
    id: "edge-" + e.from + "-" + e.to, x: lx, y: ly, "text-anchor": "middle",
    "data-value": e.records === null ? "" : String(e.records), "data-pending": e.pending === undefined || e.pending === null ? "" : String(e.pending),
  }, label));
  return group;
}

// bezier is the coordinate at t of the cubic Bézier curve through p0..p3.
function bezier(t, p0, p1, p2, p3) {
  const u = 1 - t;
  return u * u * u * p0 + 3 * u * u * t * p1 + 3 * u * t * t * p2 + t * t * t * p3;
}

function arrowMarker() {
  const defs = svg("defs");
  const marker = svg("marker", { id: "arrow", viewBox: "0 0 10 10", refX: 9, refY: 5, markerWidth: 7, markerHeight: 7, orient: "auto" });
  marker.append(svg("path", { d: "M0,0 L10,5 L0,10 z", fill: "#9aa5b4" }));
  defs.append(marker);
  return defs;
}

// ---- refresh ----

function render(v) {
  renderHeader(v);
  renderGraph(v);
  document.getElementById("graph").prepend(arrowMarker());
  renderSources(v);
  renderOperators(v);
  renderCheckpoints(v.checkpoints);
  renderDeadLetters(v);
  renderSinks(v);
}

async function refresh() {
  const error = document.getElementById("load-error");
  try {
    const resp = await fetch("/api/pipeline", { cache: "no-store" });
    if (!resp.ok) throw new Error("/api/pipeline answered " + resp.status);
    render(await resp.json());
    error.hidden = true;
  } catch (err) {
    error.hidden = false;
    error.textContent = "cannot read the pipeline: " + err.message + " (is wasmstream still running?)";
  } finally {
    setTimeout(refresh, refreshMillis);
  }
}

refresh();

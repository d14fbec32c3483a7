// The Cairn web console (docs/console.md). Plain JavaScript, no libraries: it polls the router's
// /console/api/state once a second, fetches the bucket map only when its version changes, and
// draws the map and the charts on canvases. Everything from the cluster is inserted as text,
// never as HTML.
"use strict";

const POLL_MS = 1000;
const MARK = { MOVING: 1 << 12, PINNED: 1 << 13, DOUBLED: 1 << 14, ARCHIVED: 1 << 15 };
const OWNER_BITS = (1 << 12) - 1;
const MARK_COLOURS = { moving: "#ffd400", pinned: "#14171f", doubled: "#e01010", archived: "#b8bcc6" };
const UNKNOWN_COLOUR = "#3a3f4b";
const PALETTE = ["#4e79a7", "#59a14f", "#9c755f", "#af7aa1", "#76b7b2", "#f28e2b", "#edc948", "#ff9da7", "#8cd17d", "#86bcb6", "#d37295", "#499894"];

const view = {
  state: null, owners: [], cells: null, mapVersion: null, layout: null,
  selected: null, detailInFlight: false, updates: 0, waveStartMoved: null, lastOk: 0,
  traffic: {}, trafficSince: 0  // the charts' points, merged from the new ones each poll brings
};
const HISTORY_MS = 120_000;

function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null) continue;
    if (k === "class") node.className = v;
    else if (k.startsWith("data-")) node.setAttribute(k, String(v));
    else if (k === "style") node.style.cssText = v;
    else node[k] = v;
  }
  for (const c of children.flat()) {
    if (c === null || c === undefined || c === false) continue;
    node.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return node;
}

function colourOf(replicaset) {
  const i = view.owners.indexOf(replicaset);
  if (i < 0) return UNKNOWN_COLOUR;
  return i < PALETTE.length ? PALETTE[i] : `hsl(${(i * 137.5) % 360}, 55%, 52%)`;
}

function fmt(n, digits = 0) {
  if (n === null || n === undefined || n === "") return "-";
  if (typeof n !== "number") return String(n);
  return n.toLocaleString("en-US", { maximumFractionDigits: digits });
}

function duration(seconds) {
  if (seconds < 0) return "unknown (no move finished yet)";
  if (seconds === 0) return "none";
  const h = Math.floor(seconds / 3600), m = Math.floor(seconds / 60) % 60, s = Math.round(seconds % 60);
  return (h ? h + " h " : "") + (h || m ? m + " min " : "") + s + " s";
}

// ---- polling ----

async function poll() {
  try {
    const response = await fetch("api/state?since=" + view.trafficSince, { cache: "no-store" });
    if (!response.ok) throw new Error("HTTP " + response.status);
    const state = await response.json();
    if (state.at) {
      view.state = state;
      mergeTraffic(state.traffic || {}, state.at);
      view.owners = state.owners || [];
      if (state.mapVersion !== view.mapVersion) await fetchMap();
      render(state);
      view.updates++;
      document.body.dataset.updates = view.updates;
      view.lastOk = Date.now();
      setStatus(true, "live, updated " + new Date(state.at).toLocaleTimeString());
    } else {
      setStatus(false, "the router is gathering the cluster's state");
    }
    if (view.selected !== null) refreshDetail();
  } catch (e) {
    setStatus(false, "no answer from the router" + (view.lastOk ? " since " + new Date(view.lastOk).toLocaleTimeString() : "") + " (" + e.message + ")");
  } finally {
    setTimeout(poll, POLL_MS);
  }
}

async function fetchMap() {
  const response = await fetch("api/buckets", { cache: "no-store" });
  if (!response.ok) return;
  view.cells = new Uint16Array(await response.arrayBuffer());
  view.owners = (response.headers.get("X-Cairn-Owners") || "").split(",").filter(s => s);
  view.mapVersion = response.headers.get("X-Cairn-Map-Version");
  drawMap();
}

// The router sends only the points after `since`; older ones are kept here for two minutes.
function mergeTraffic(fresh, now) {
  for (const id of Object.keys(view.traffic)) if (!(id in fresh)) delete view.traffic[id]; // a removed replicaset
  for (const [id, columns] of Object.entries(fresh)) {
    const kept = view.traffic[id] || (view.traffic[id] = { t: [], writes: [], reads: [], writeMs: [], readMs: [] });
    for (const k of Object.keys(kept)) kept[k].push(...(columns[k] || []));
    let drop = 0;
    while (drop < kept.t.length && kept.t[drop] < now - HISTORY_MS) drop++;
    for (const k of Object.keys(kept)) kept[k].splice(0, drop);
    if (kept.t.length) view.trafficSince = Math.max(view.trafficSince, kept.t[kept.t.length - 1]);
  }
}

function setStatus(ok, text) {
  const s = document.getElementById("status");
  s.className = "status " + (ok ? "live" : "stale");
  s.textContent = text;
}

function render(state) {
  document.getElementById("summary").textContent =
    `epoch ${state.epoch} · ${fmt(state.bucketCount)} buckets · ${state.replicasets.length} replicasets · router ${state.router}` +
    (state.unknownBuckets ? ` · ${fmt(state.unknownBuckets)} buckets with no known owner` : "");
  renderTopology(state);
  renderLegend(state);
  renderRebalancer(state.rebalancer || {});
  renderAlerts(state.alerts || []);
  renderTraffic(view.traffic);
}

// ---- topology ----

function renderTopology(state) {
  const box = document.getElementById("topology");
  box.replaceChildren(...state.replicasets.map(rs => {
    const left = rs.bucketsLeft > 0 ? ` (${fmt(rs.bucketsLeft)} buckets left)` : "";
    const rows = rs.members.map(m => el("tr", { class: m.up ? "" : "down", "data-member": m.id, "data-up": m.up, "data-role": m.role },
      el("td", {}, m.id, m.id === rs.leader ? " ★" : ""),
      el("td", {}, el("span", { class: "badge " + m.role }, m.role)),
      el("td", {}, el("span", { class: "badge " + (m.up ? "up" : "down") }, m.up ? "up" : "down"),
        m.rejoining ? el("span", { class: "badge rejoining", title: "REPLACED_DISK: neither votes nor serves until caught up" }, " rejoining") : null),
      el("td", { class: "muted" }, m.up ? "applied " + fmt(m.appliedIndex) + " · term " + fmt(m.term) : m.address)));
    return el("div", { class: "replicaset", "data-replicaset": rs.id, "data-state": rs.state, style: "--rs-colour:" + colourOf(rs.id) },
      el("div", { class: "head" },
        el("b", {}, rs.id),
        el("span", { class: "badge " + rs.state }, rs.state),
        el("span", {}, "weight " + rs.weight),
        el("span", {}, fmt(rs.buckets) + " buckets" + left),
        el("span", {}, fmt(rs.keys) + " keys"),
        el("span", { class: rs.leader ? "" : "badge DOWN" }, rs.leader ? "leader " + rs.leader : "no leader")),
      el("table", {}, el("tbody", {}, rows)));
  }));
  const processes = (title, list) => el("div", {}, el("span", { class: "muted" }, title + ": "),
    list.map(p => el("span", { "data-process": p.id, "data-up": p.up },
      el("span", { class: "badge " + (p.up ? "up" : "down") }, p.id + (p.leader ? " (leader)" : "") + (p.self ? " (this one)" : "")), " ")));
  document.getElementById("processes").replaceChildren(
    processes("coordinators", state.coordinators || []), processes("routers", state.routers || []));
}

// ---- bucket map ----

function renderLegend(state) {
  const items = view.owners.map(o => el("span", {}, el("span", { class: "swatch", style: "background:" + colourOf(o) }), o));
  items.push(el("span", {}, el("span", { class: "swatch", style: "background:" + UNKNOWN_COLOUR }), "no known owner"));
  for (const [name, colour] of Object.entries(MARK_COLOURS)) {
    items.push(el("span", {}, el("span", { class: "swatch", style: "background:" + colour }), name));
  }
  document.getElementById("legend").replaceChildren(...items);
  const cells = view.cells;
  if (!cells) return;
  let moving = 0, pinned = 0, doubled = 0, archived = 0;
  for (let i = 0; i < cells.length; i++) {
    const c = cells[i];
    if (c & MARK.MOVING) moving++;
    if (c & MARK.PINNED) pinned++;
    if (c & MARK.DOUBLED) doubled++;
    if (c & MARK.ARCHIVED) archived++;
  }
  const caption = document.getElementById("map-caption");
  caption.textContent = `${fmt(cells.length)} buckets · ${moving} moving · ${pinned} pinned · ${doubled} doubled · ${archived} archived`;
  caption.dataset.moving = moving;
}

// A cell per bucket, row by row; cells as large as the box allows (at least one pixel).
function layoutFor(count, width) {
  const targetHeight = Math.min(640, Math.max(160, width * 0.6));
  let size = Math.floor(Math.sqrt((width * targetHeight) / count));
  size = Math.max(1, Math.min(28, size));
  const cols = Math.max(1, Math.floor(width / size));
  return { size, cols, rows: Math.ceil(count / cols) };
}

function markColour(cell) {
  if (cell & MARK.DOUBLED) return MARK_COLOURS.doubled;
  if (cell & MARK.MOVING) return MARK_COLOURS.moving;
  if (cell & MARK.PINNED) return MARK_COLOURS.pinned;
  if (cell & MARK.ARCHIVED) return MARK_COLOURS.archived;
  return null;
}

const rgbCache = new Map();
function rgb(colour) {
  let v = rgbCache.get(colour);
  if (!v) {
    const c = document.createElement("canvas").getContext("2d");
    c.fillStyle = colour;
    c.fillRect(0, 0, 1, 1);
    v = c.getImageData(0, 0, 1, 1).data.slice(0, 3);
    rgbCache.set(colour, v);
  }
  return v;
}

function drawMap() {
  const cells = view.cells;
  if (!cells) return;
  const canvas = document.getElementById("map");
  const width = Math.max(200, Math.floor(document.getElementById("map-box").clientWidth));
  const layout = layoutFor(cells.length, width);
  view.layout = layout;
  canvas.width = layout.cols * layout.size;
  canvas.height = layout.rows * layout.size;
  const ctx = canvas.getContext("2d");
  const image = ctx.createImageData(canvas.width, canvas.height);
  const px = image.data;
  const s = layout.size, gap = s >= 6 ? 1 : 0, inner = s >= 4 ? Math.ceil(s / 2) : s, innerOff = Math.floor((s - inner) / 2);
  const ownerRgb = [rgb(UNKNOWN_COLOUR)].concat(view.owners.map(o => rgb(colourOf(o))));
  for (let i = 0; i < cells.length; i++) {
    const cell = cells[i];
    const base = ownerRgb[cell & OWNER_BITS] || ownerRgb[0];
    const mc = markColour(cell);
    const mark = mc ? rgb(mc) : null;
    const x0 = (i % layout.cols) * s, y0 = Math.floor(i / layout.cols) * s;
    for (let dy = 0; dy < s - gap; dy++) {
      let p = ((y0 + dy) * canvas.width + x0) * 4;
      for (let dx = 0; dx < s - gap; dx++, p += 4) {
        const inMark = mark && dx >= innerOff && dx < innerOff + inner && dy >= innerOff && dy < innerOff + inner;
        const c = inMark ? mark : base;
        px[p] = c[0]; px[p + 1] = c[1]; px[p + 2] = c[2]; px[p + 3] = 255;
      }
    }
  }
  ctx.putImageData(image, 0, 0);
  if (view.selected !== null) outline(view.selected);
}

function outline(bucket) {
  const l = view.layout;
  if (!l || bucket < 1 || bucket > view.cells.length) return;
  const ctx = document.getElementById("map").getContext("2d");
  const i = bucket - 1, s = Math.max(l.size, 3);
  ctx.strokeStyle = "#000";
  ctx.lineWidth = 2;
  ctx.strokeRect((i % l.cols) * l.size - (s - l.size) / 2, Math.floor(i / l.cols) * l.size - (s - l.size) / 2, s, s);
}

function bucketAt(event) {
  const canvas = document.getElementById("map"), l = view.layout;
  if (!l) return null;
  const r = canvas.getBoundingClientRect();
  const x = (event.clientX - r.left) * (canvas.width / r.width), y = (event.clientY - r.top) * (canvas.height / r.height);
  const i = Math.floor(y / l.size) * l.cols + Math.floor(x / l.size);
  return i >= 0 && i < view.cells.length ? i + 1 : null;
}

function describeCell(bucket) {
  const cell = view.cells[bucket - 1];
  const owner = view.owners[(cell & OWNER_BITS) - 1] || "no known owner";
  const marks = Object.entries(MARK).filter(([, bit]) => cell & bit).map(([name]) => name.toLowerCase());
  return `bucket ${bucket} · ${owner}` + (marks.length ? " · " + marks.join(", ") : "");
}

// ---- one bucket ----

function select(bucket) {
  if (!view.state || !(bucket >= 1 && bucket <= view.state.bucketCount)) {
    document.getElementById("bucket-detail").replaceChildren(el("p", { class: "muted" },
      "A bucket is a number from 1 to " + (view.state ? view.state.bucketCount : "the bucket count") + "."));
    return;
  }
  view.selected = bucket;
  document.getElementById("bucket-input").value = bucket;
  const url = new URL(location.href);
  url.searchParams.set("bucket", bucket);
  history.replaceState(null, "", url);
  drawMap();
  refreshDetail();
}

async function refreshDetail() {
  if (view.detailInFlight || view.selected === null) return;
  view.detailInFlight = true;
  const bucket = view.selected;
  try {
    const response = await fetch("api/bucket/" + bucket, { cache: "no-store" });
    const d = await response.json();
    if (bucket === view.selected) renderDetail(d);
  } catch (e) {
    // the next poll tries again; the status line says when the router does not answer
  } finally {
    view.detailInFlight = false;
  }
}

function renderDetail(d) {
  const box = document.getElementById("bucket-detail");
  if (d.error) {
    box.replaceChildren(el("p", { class: "muted" }, d.message));
    return;
  }
  const moving = d.marks.includes("moving");
  box.dataset.bucket = d.bucket;
  box.dataset.owner = d.owner || "";
  box.dataset.state = d.state || "";
  box.dataset.moving = moving;
  const facts = el("dl", { class: "facts" },
    el("dt", {}, "owner"), el("dd", {}, el("span", { class: "swatch", style: "background:" + colourOf(d.owner) }), d.owner || "unknown"),
    el("dt", {}, "state"), el("dd", {}, (d.state || "-") + " · generation " + d.generation),
    el("dt", {}, "marks"), el("dd", {}, d.marks.length ? d.marks.join(", ") : "none"));
  if (d.move) {
    facts.append(el("dt", {}, "moving"), el("dd", { class: "move" },
      `${d.move.from} → ${d.move.to}, phase ${d.move.phase}, ${fmt(d.move.keysSent)} keys sent`));
  }
  const records = d.records
    ? el("table", {}, el("tbody", {}, Object.entries(d.records).map(([rs, r]) => el("tr", {}, el("td", {}, rs), el("td", {}, r)))))
    : el("p", { class: "muted" }, d.recordsError || "");
  box.replaceChildren(el("h3", {}, "Bucket " + d.bucket), facts, el("div", { class: "muted" }, "Record on each replicaset (from the coordinator leader):"), records);
}

// ---- rebalancer ----

function renderRebalancer(rb) {
  const box = document.getElementById("rebalancer");
  if (!rb.running) {
    box.replaceChildren(el("p", { class: "muted" }, "Not running: no coordinator answers as the leader."));
    return;
  }
  // Progress of the current wave of moves: buckets moved since the page first saw moves pending, out of those plus the ones left.
  const toMove = rb.bucketsToMove || 0, inFlight = rb.inFlight || 0, remaining = toMove + inFlight;
  if (remaining === 0) view.waveStartMoved = null;
  else if (view.waveStartMoved === null) view.waveStartMoved = rb.moved;
  const doneNow = view.waveStartMoved === null ? 0 : rb.moved - view.waveStartMoved;
  const fraction = remaining === 0 ? 1 : doneNow / (doneNow + remaining);
  const stateText = inFlight > 0 ? `moving (${fmt(doneNow)} of ${fmt(doneNow + remaining)} done)` : toMove > 0 ? "moves planned, none in flight"
    : rb.balanced ? "balanced" : "nothing to move";
  const eta = remaining === 0 ? "none" : toMove === 0 ? "when the moves in flight end" : duration(rb.etaSeconds);
  const held = rb.writesHeldMs || {};
  const facts = el("dl", { class: "facts" },
    el("dt", {}, "state"), el("dd", { "data-balanced": rb.balanced }, stateText),
    el("dt", {}, "to move"), el("dd", {}, `${fmt(toMove)} buckets planned, ${fmt(inFlight)} in flight`),
    el("dt", {}, "rate"), el("dd", {}, `${fmt(rb.bucketsPerSecond, 1)} buckets/s (last 10 s)`),
    el("dt", {}, "ETA"), el("dd", {}, eta),
    el("dt", {}, "disbalance"), el("dd", {}, `${rb.disbalancePercent} %`),
    el("dt", {}, "moved"), el("dd", {}, `${fmt(rb.moved)} buckets (${fmt(rb.keysMoved)} keys), ${fmt(rb.rolledBack)} rolled back, since the leader started`),
    el("dt", {}, "writes held"), el("dd", {}, held.moves ? `p50 ${held.p50} ms, p99 ${held.p99} ms, max ${held.max} ms (last ${held.moves} moves)` : "-"),
    el("dt", {}, "copy rate"), el("dd", {}, rb.copyBytesPerSecond > 0 ? fmt(rb.copyBytesPerSecond) + " bytes/s" : "not limited"));
  const targets = rb.targets || {};
  const phases = rb.replicasets || {};
  const table = el("table", {}, el("thead", {}, el("tr", {}, ["replicaset", "state", "buckets", "target", "left"].map(h => el("th", {}, h)))),
    el("tbody", {}, Object.entries(phases).map(([id, p]) => el("tr", {},
      el("td", {}, el("span", { class: "swatch", style: "background:" + colourOf(id) }), id), el("td", {}, el("span", { class: "badge " + p.state }, p.state)),
      el("td", {}, fmt(p.buckets)), el("td", {}, fmt(targets[id])), el("td", {}, fmt(p.bucketsLeft))))));
  const moves = rb.moves || [];
  const moveList = moves.length
    ? el("table", { id: "moves" }, el("thead", {}, el("tr", {}, ["bucket", "from → to", "phase", "keys sent"].map(h => el("th", {}, h)))),
      el("tbody", {}, moves.slice(0, 20).map(m => el("tr", { "data-bucket": m.bucket },
        el("td", {}, el("a", { href: "#", onclick: (e) => { e.preventDefault(); select(m.bucket); } }, m.bucket)),
        el("td", {}, `${m.from} → ${m.to}`), el("td", {}, m.phase), el("td", {}, fmt(m.keysSent))))))
    : el("p", { class: "muted" }, "No move in flight.");
  box.replaceChildren(el("div", { class: "bar", title: Math.round(fraction * 100) + " %" }, el("div", { style: `width:${(fraction * 100).toFixed(1)}%` })),
    facts, table, el("h3", {}, "Moves in flight" + (moves.length > 20 ? ` (first 20 of ${moves.length})` : "")), moveList);
}

// ---- alerts ----

function renderAlerts(alerts) {
  const box = document.getElementById("alerts");
  box.dataset.count = alerts.length;
  if (!alerts.length) {
    box.replaceChildren(el("p", { class: "all-well" }, "No alerts: all is well."));
    return;
  }
  box.replaceChildren(...alerts.map(a => {
    const help = ALERT_HELP[a.code] || {};
    return el("div", { class: "alert", "data-code": a.code },
      el("div", {}, el("span", { class: "code" }, a.code), el("span", { class: "muted" }, " from " + a.source)),
      help.what ? el("div", { class: "what" }, help.what) : null,
      help.todo ? el("div", { class: "todo" }, help.todo) : null,
      el("div", { class: "text" }, a.text));
  }));
}

// ---- charts ----

function renderTraffic(traffic) {
  const ids = Object.keys(traffic);
  const series = (field, dashed) => ids.map(id => ({ colour: colourOf(id), dashed, t: traffic[id].t, v: traffic[id][field] }));
  drawChart(document.getElementById("throughput"), series("writes", false).concat(series("reads", true)), "ops/s");
  drawChart(document.getElementById("latency"), series("writeMs", false).concat(series("readMs", true)), "ms");
  document.getElementById("traffic-legend").replaceChildren(...ids.map(id => {
    const last = (f) => { const v = traffic[id][f]; return v.length ? v[v.length - 1] : null; };
    return el("span", { "data-replicaset": id, "data-writes": last("writes"), "data-reads": last("reads") }, el("span", { class: "swatch", style: "background:" + colourOf(id) }),
      `${id}: ${fmt(last("writes"))} writes/s, ${fmt(last("reads"))} reads/s, ${last("writeMs") >= 0 ? last("writeMs") + " ms" : "-"} / ${last("readMs") >= 0 ? last("readMs") + " ms" : "-"}`);
  }));
}

function drawChart(canvas, series, unit) {
  const width = Math.max(300, Math.floor(canvas.getBoundingClientRect().width));
  canvas.width = width;
  const ctx = canvas.getContext("2d"), h = canvas.height, left = 56, bottom = 18, top = 8;
  ctx.clearRect(0, 0, width, h);
  const now = view.state ? view.state.at : Date.now(), span = 120_000; // the router's clock: a browser's may differ
  let max = 0;
  for (const s of series) for (const v of s.v) if (v > max) max = v;
  max = niceCeiling(max);
  ctx.strokeStyle = "#dde1e8";
  ctx.fillStyle = "#6b7385";
  ctx.font = "11px system-ui, sans-serif";
  ctx.lineWidth = 1;
  for (let k = 0; k <= 4; k++) {
    const y = top + (h - top - bottom) * (1 - k / 4);
    ctx.beginPath(); ctx.moveTo(left, y); ctx.lineTo(width, y); ctx.stroke();
    ctx.fillText(fmt(max * k / 4, 2) + " " + unit, 2, y + 4);
  }
  ctx.fillText("2 min ago", left, h - 4);
  ctx.fillText("now", width - 24, h - 4);
  for (const s of series) {
    ctx.strokeStyle = s.colour;
    ctx.lineWidth = 1.6;
    ctx.setLineDash(s.dashed ? [4, 3] : []);
    ctx.beginPath();
    let drawing = false;
    for (let i = 0; i < s.t.length; i++) {
      const v = s.v[i];
      if (v < 0) { drawing = false; continue; } // no batch answered in that second
      const x = left + (width - left) * (1 - (now - s.t[i]) / span), y = top + (h - top - bottom) * (1 - v / max);
      if (drawing) ctx.lineTo(x, y); else ctx.moveTo(x, y);
      drawing = true;
    }
    ctx.stroke();
  }
  ctx.setLineDash([]);
}

function niceCeiling(v) {
  if (v <= 0) return 1;
  const p = Math.pow(10, Math.floor(Math.log10(v)));
  for (const m of [1, 2, 5, 10]) if (m * p >= v) return m * p;
  return 10 * p;
}

// ---- events ----

document.getElementById("map").addEventListener("mousemove", (e) => {
  const tip = document.getElementById("tooltip"), b = bucketAt(e);
  if (b === null) { tip.hidden = true; return; }
  tip.textContent = describeCell(b);
  tip.style.left = (e.offsetX + 12) + "px";
  tip.style.top = (e.offsetY + 12) + "px";
  tip.hidden = false;
});
document.getElementById("map").addEventListener("mouseleave", () => { document.getElementById("tooltip").hidden = true; });
document.getElementById("map").addEventListener("click", (e) => { const b = bucketAt(e); if (b !== null) select(b); });
document.getElementById("bucket-form").addEventListener("submit", (e) => {
  e.preventDefault();
  select(parseInt(document.getElementById("bucket-input").value, 10));
});
window.addEventListener("resize", () => { drawMap(); renderTraffic(view.traffic); });

const wanted = parseInt(new URLSearchParams(location.search).get("bucket"), 10);
if (wanted > 0) {
  view.selected = wanted;
  document.getElementById("bucket-input").value = wanted;
}
poll();

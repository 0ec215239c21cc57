// Applying the server's ops to the page (docs/protocol.md), and what
// waits: the event list's rows while it is closed, and within a second
// of play shown, the words that tell the time and the renewal chart.

import { send } from "./socket.js";

// applyOp carries out one of a frame's ops on its target; gone, on a
// scale, is the ids the batch removes after it.
export function applyOp(el, o, gone) {
  switch (o.op) {
    case "append": el.insertAdjacentHTML("beforeend", o.html); break;
    case "before": el.insertAdjacentHTML("beforebegin", o.html); break;
    case "swap": el.outerHTML = o.html; break;
    case "remove": el.remove(); break;
    case "text": el.textContent = o.html; break;
    case "attr": el.setAttribute(o.attr, o.html); break;
    case "scale": rescale(el, o.html, gone); break;
    default: el.innerHTML = o.html;
  }
}

// rescale (docs/protocol.md, scale) moves each element with a data-x in
// el from the scale el's data-k says to k, but those the batch removes
// after it (gone: a window that narrows drops hundreds at once).
function rescale(el, k, gone) {
  const from = el.dataset.k;
  el.dataset.k = k;
  const placed = "[x],[cx],[x1],[x2],[d]";
  for (const e of el.querySelectorAll("[data-x]")) {
    const dx = Math.round(e.dataset.x * k) - Math.round(e.dataset.x * from);
    if (!dx || gone?.has(e.id)) continue;
    for (const n of e.matches(placed) ? [e, ...e.querySelectorAll(placed)] : e.querySelectorAll(placed)) {
      for (const a of ["x", "cx", "x1", "x2", "d"]) {
        const v = n.getAttribute(a);
        if (v) n.setAttribute(a, a === "d" ? v.replace(/^M(-?[\d.]+)/, (_, m) => "M" + (+m + dx)) : +v + dx);
      }
    }
  }
}

// removedAfter is the ids ops removes after its i-th.
function removedAfter(ops, i) {
  const ids = new Set();
  for (let j = i + 1; j < ops.length; j++) if (ops[j].op === "remove") ids.add(ops[j].target);
  return ids;
}

// clockOps are a message's ops, after those its time and its "now" line's
// place stand for (at and x): a play frame that only moves time sends
// those two instead of four ops.
export function clockOps(m) {
  const ops = [];
  if (m.x !== undefined) {
    ops.push({ op: "attr", target: "live-nowline", attr: "transform", html: `translate(${m.x},0)` },
      { op: "attr", target: "live-box", attr: "data-focus", html: String(m.x) });
  }
  if (m.at !== undefined) ops.push({ op: "text", target: "now", html: m.at }, { op: "text", target: "live-nowat", html: m.at });
  // On the wire an op is an array: what it does, its target, its html
  // (none on a remove), the attribute (only on attr).
  for (const [op, target, html = "", attr] of m.ops || []) ops.push({ op, target, html, attr });
  return ops;
}

// waits says whether an op of a play frame within the second shown
// waits for the next second (lateText): the words that tell the time,
// the picture's hidden line, and, while the glide has the layer, the
// box's focus.
export const waits = (o, onGlide) => (o.op === "text" && (o.target === "now" || o.target === "live-nowat" || /^cmd-\d+$/.test(o.target))) ||
  (o.op === "attr" && o.target === "live-nowline") || (onGlide && o.op === "attr" && o.target === "live-box" && o.attr === "data-focus");

// While the world plays and the event list is closed, the server leaves
// its new rows out (play's rows). Rows on their way as it closed (and a
// row's swap) wait in heldRows, a replace dropping what waited before
// it, and go in first when the list opens or the world stops.
export const rows = (lab) => !lab.eventBox || lab.eventBox.open;

export function putHeldRows(lab) {
  for (const o of lab.heldRows.splice(0)) {
    const el = document.getElementById(o.target);
    if (el) applyOp(el, o);
  }
}

export function showLatest(list) { list.scrollTop = list.scrollHeight; }

// followRows asks for the rows when the list opens while playing, and
// shows what waited.
export function followRows(lab) {
  const box = lab.eventBox;
  box?.addEventListener("toggle", () => {
    if (lab.playing && !lab.pausing) send(lab, { type: "play", rows: rows(lab) });
    const l = box.querySelector(".events");
    if (!box.open || !l) return;
    putHeldRows(lab);
    showLatest(l);
  });
}

// takeLate puts in front of ops what waited for this second, unless its
// target was drawn anew since.
export function takeLate(lab, ops) {
  const late = [];
  for (const h of lab.lateText.values()) if (document.getElementById(h.o.target) === h.el) late.push(h.o);
  lab.lateText.clear();
  late.push(...lab.lateChart.splice(0));
  return late.concat(ops);
}

// applyOps carries out a batch's ops, the last replace, swap, text or
// attr of a target alone (the one that shows; every scale too), and
// calls drawn with each op carried out and its element. Within a second
// of play shown (tick), what tells the time waits (waits), and so do the
// renewal chart's ops; while hold, the event list's rows wait.
export function applyOps(lab, ops, tick, hold, onGlide, drawn) {
  const key = (o) => o.op + " " + o.target + " " + (o.attr || "");
  const last = new Map();
  const each = (o) => o.op === "append" || o.op === "before" || o.op === "remove" || o.op === "scale";
  ops.forEach((o, i) => { if (!each(o)) last.set(key(o), i); });
  ops.forEach((o, i) => {
    if (!each(o) && last.get(key(o)) !== i) return;
    if (tick && waits(o, onGlide)) {
      lab.lateText.set(o.target, { o, el: document.getElementById(o.target) });
      return;
    }
    // The renewal chart waits in order; a redrawn chart drops what
    // waited before it.
    if (tick && (o.target === "chart" || o.target.startsWith("live-chart-"))) {
      if (o.target === "chart") lab.lateChart = [];
      lab.lateChart.push(o);
      return;
    }
    if (hold && (o.target === "events" || o.target.startsWith("events-"))) {
      if (o.target === "events" && o.op === "replace") lab.heldRows = [];
      lab.heldRows.push(o);
      return;
    }
    const el = document.getElementById(o.target);
    if (!el) return;
    applyOp(el, o, o.op === "scale" ? removedAfter(ops, i) : undefined);
    drawn(o, el);
  });
}

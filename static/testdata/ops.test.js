// Op application on a DOM (static/ops.js): each op, a message's time and
// line as ops, the last op of a target alone, and what waits.

import { test } from "node:test";
import assert from "node:assert/strict";
import { page } from "./dom.js";
import { applyOp, clockOps, applyOps, putHeldRows, takeLate } from "../ops.js";

const html = `<div id="lab" data-lab="w1-w2" data-query="seed=1">
<span id="now">0s</span><div id="status"><b id="holder">W1</b></div>
<ol id="events"><li id="events-1">one</li></ol>
<svg><g id="live-nowline" transform="translate(0,0)"><text><tspan id="live-nowat">0s</tspan></text></g></svg>
<div id="live-box" data-focus="0"></div><div id="chart"></div><span id="cmd-1">advance 1s</span></div>`;

const el = (id) => document.getElementById(id);
const lab = () => ({ heldRows: [], lateText: new Map(), lateChart: [] });

test("each op does what docs/protocol.md says to its target", () => {
  page(html);
  applyOp(el("events"), { op: "append", html: `<li id="events-2">two</li>` });
  assert.equal(el("events").children.length, 2);
  applyOp(el("holder"), { op: "swap", html: `<i id="holder">W2</i>` });
  assert.equal(el("holder").tagName, "I");
  assert.equal(el("holder").textContent, "W2");
  applyOp(el("events-1"), { op: "remove" });
  assert.equal(el("events-1"), null);
  applyOp(el("now"), { op: "text", html: "<b>3s</b>" });
  assert.equal(el("now").textContent, "<b>3s</b>", "text is text, not markup");
  applyOp(el("live-box"), { op: "attr", attr: "data-focus", html: "40" });
  assert.equal(el("live-box").dataset.focus, "40");
  applyOp(el("status"), { op: "replace", html: `<p id="p">new</p>` });
  assert.equal(el("status").innerHTML, `<p id="p">new</p>`);
});

test("scale moves a live picture's marks and messages from the scale its data-k says to the new one, and nothing else", () => {
  page(`<svg><g id="live-plot" transform="translate(118,0)" data-k="1">
<g id="live-leases"><g id="live-l0"><rect id="live-l0r" x="10" width="40"></rect></g></g>
<g id="live-msgs"><path id="live-g1" data-x="631" d="M631,95 V44 m3.5,6 l-3.5,-6 l-3.5,6"></path><path id="live-g2" data-x="0" d="M0,44 V95"></path></g>
<g id="live-marks"><g id="live-m1" data-x="631"><title>t</title><circle cx="631" cy="9" r="7"></circle><path d="M627,9 l3,3"></path><text x="641" y="13">3</text></g>
<g id="live-m2" data-x="3"><line x1="3" x2="3" y1="1" y2="9"></line><rect x="-1" y="0" width="8" height="8"></rect></g></g></g></svg>`);
  applyOp(el("live-plot"), { op: "scale", html: "0.5" });
  // 631 × 0.5 = 315.5, drawn at 316 as Go's math.Round and Math.round put it; 3 × 0.5 at 2.
  assert.equal(el("live-plot").dataset.k, "0.5");
  assert.equal(el("live-g1").getAttribute("d"), "M316,95 V44 m3.5,6 l-3.5,-6 l-3.5,6");
  assert.equal(el("live-g2").getAttribute("d"), "M0,44 V95");
  const m1 = el("live-m1");
  assert.equal(m1.querySelector("circle").getAttribute("cx"), "316");
  assert.equal(m1.querySelector("path").getAttribute("d"), "M312,9 l3,3");
  assert.equal(m1.querySelector("text").getAttribute("x"), "326");
  const m2 = el("live-m2");
  assert.deepEqual([m2.querySelector("line").getAttribute("x1"), m2.querySelector("line").getAttribute("x2"), m2.querySelector("rect").getAttribute("x")], ["2", "2", "-2"]);
  assert.equal(m2.querySelector("rect").getAttribute("width"), "8", "a width is not a place");
  assert.equal(el("live-l0r").getAttribute("x"), "10", "a bar has no data-x: the server sends its place");
  applyOp(el("live-plot"), { op: "scale", html: "0.333333" });
  assert.equal(el("live-g1").getAttribute("d"), "M210,95 V44 m3.5,6 l-3.5,-6 l-3.5,6", "from 0.5 to a third: 631 × 0.333333 is 210.3");
});

test("every scale of a batch is carried out, in order with what else the batch appends", () => {
  page(`<svg><g id="live-plot" data-k="1"><g id="live-marks"><g id="live-m1" data-x="100"><circle cx="100"></circle></g></g></g></svg>`);
  applyOps(lab(), [
    { op: "scale", target: "live-plot", html: "0.5" },
    { op: "append", target: "live-marks", html: `<g id="live-m2" data-x="200"><circle cx="100"></circle></g>` },
    { op: "scale", target: "live-plot", html: "0.25" },
  ], false, false, false, () => {});
  assert.equal(el("live-m1").querySelector("circle").getAttribute("cx"), "25");
  assert.equal(el("live-m2").querySelector("circle").getAttribute("cx"), "50");
  assert.equal(el("live-plot").dataset.k, "0.25");
});

test("a message's time and line stand for four ops, before its own", () => {
  const ops = clockOps({ at: "2.4s", x: 37, ops: [["text", "holder", "W2"], ["remove", "events-1"], ["attr", "live-box", "9", "data-x"]] });
  assert.deepEqual(ops, [
    { op: "attr", target: "live-nowline", attr: "transform", html: "translate(37,0)" },
    { op: "attr", target: "live-box", attr: "data-focus", html: "37" },
    { op: "text", target: "now", html: "2.4s" },
    { op: "text", target: "live-nowat", html: "2.4s" },
    { op: "text", target: "holder", html: "W2", attr: undefined },
    { op: "remove", target: "events-1", html: "", attr: undefined },
    { op: "attr", target: "live-box", html: "9", attr: "data-x" },
  ]);
  assert.deepEqual(clockOps({ ops: [] }), []);
});

test("the last op of a kind on a target is the one carried out; every append is", () => {
  page(html);
  const drawn = [];
  applyOps(lab(), [
    { op: "text", target: "now", html: "1s" },
    { op: "append", target: "events", html: "<li>a</li>" },
    { op: "text", target: "now", html: "2s" },
    { op: "append", target: "events", html: "<li>b</li>" },
    { op: "text", target: "nothing-here", html: "x" },
  ], false, false, false, (o, e) => drawn.push(o.html + "@" + e.id));
  assert.equal(el("now").textContent, "2s");
  assert.equal(el("events").textContent, "oneab");
  assert.deepEqual(drawn, ["<li>a</li>@events", "2s@now", "<li>b</li>@events"]);
});

test("within a second of play shown, the time's words and the chart wait; the rest is drawn", () => {
  page(html);
  const l = lab();
  const ops = clockOps({ at: "3.2s", x: 32, ops: [["text", "cmd-1", "advance 2s"], ["text", "holder", "W2"], ["append", "live-chart-1", "<i></i>"], ["replace", "chart", "<svg></svg>"], ["append", "live-chart-2", "<i></i>"]] });
  applyOps(l, ops, true, false, false, () => {});
  assert.equal(el("holder").textContent, "W2", "what is not the time is drawn");
  assert.equal(el("now").textContent, "0s");
  assert.equal(el("cmd-1").textContent, "advance 1s");
  assert.equal(el("live-box").dataset.focus, "32", "off the glide the box's focus is drawn");
  assert.deepEqual([...l.lateText.keys()].sort(), ["cmd-1", "live-nowat", "live-nowline", "now"]);
  assert.deepEqual(l.lateChart.map((o) => o.target), ["chart", "live-chart-2"], "a redrawn chart drops what waited before it");
  // On the glide the box's focus waits too.
  const g = lab();
  applyOps(g, clockOps({ x: 33 }), true, false, true, () => {});
  assert.ok(g.lateText.has("live-box"));
  assert.equal(el("live-box").dataset.focus, "32");
  // The next second: what waited goes first, unless its target was drawn anew.
  el("cmd-1").outerHTML = `<span id="cmd-1">new</span>`;
  const next = takeLate(l, [{ op: "text", target: "holder", html: "W1" }]);
  assert.deepEqual(next.map((o) => o.target), ["live-nowline", "now", "live-nowat", "chart", "live-chart-2", "holder"]);
  assert.equal(l.lateText.size, 0);
  assert.equal(l.lateChart.length, 0);
});

test("while the list is held, its rows wait, a replace dropping those before it", () => {
  page(html);
  const l = lab();
  applyOps(l, [
    { op: "append", target: "events", html: `<li id="events-2">two</li>` },
    { op: "replace", target: "events", html: `<li id="events-1">one</li>` },
    { op: "append", target: "events", html: `<li id="events-3">three</li>` },
    { op: "swap", target: "events-1", html: `<li id="events-1" class="harm">one</li>` },
    { op: "text", target: "now", html: "5s" },
  ], false, true, false, () => {});
  assert.equal(el("now").textContent, "5s");
  assert.equal(el("events").textContent, "one", "nothing of the list drawn while held");
  assert.deepEqual(l.heldRows.map((o) => o.op), ["replace", "append", "swap"]);
  putHeldRows(l);
  assert.equal(el("events").innerHTML, `<li id="events-1" class="harm">one</li><li id="events-3">three</li>`);
  assert.equal(l.heldRows.length, 0);
});

test("a scale leaves in place what the batch removes after it, and moves the rest", () => {
  page(`<svg><g id="live-plot" data-k="1"><g id="live-marks"><g id="live-m1" data-x="100"><circle cx="100"></circle></g><g id="live-m2" data-x="200"><circle cx="200"></circle></g><path id="live-g3" data-x="300" d="M300,1 V9"></path></g></g></svg>`);
  const m1 = el("live-m1");
  applyOps(lab(), [
    { op: "scale", target: "live-plot", html: "0.5" },
    { op: "remove", target: "live-m1" },
  ], false, false, false, () => {});
  assert.equal(el("live-m1"), null);
  assert.equal(m1.querySelector("circle").getAttribute("cx"), "100", "not moved: it goes");
  assert.equal(el("live-m2").querySelector("circle").getAttribute("cx"), "100");
  assert.equal(el("live-g3").getAttribute("d"), "M150,1 V9");
});

test("before puts markup in front of its target: what a window that grows again brings back, in order", () => {
  page(`<svg><g id="live-marks"><g id="live-m5"></g><g id="live-m9"></g></g></svg>`);
  applyOps(lab(), [
    { op: "before", target: "live-m5", html: `<g id="live-m1"></g><g id="live-m2"></g>` },
    { op: "before", target: "live-m9", html: `<g id="live-m7"></g>` },
  ], false, false, false, () => {});
  assert.deepEqual([...el("live-marks").children].map((e) => e.id), ["live-m1", "live-m2", "live-m5", "live-m7", "live-m9"]);
});

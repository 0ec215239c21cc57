// The picture and the pace of play: a diagram fitted to its box, the
// live picture's "now" line as a layer that glides while the world
// plays, and when what comes is drawn. docs/protocol.md ("What the page
// that ships does") says how each spares a slow phone work.

import { clockOps, waits, rows, putHeldRows, takeLate, applyOps, showLatest } from "./ops.js";
import { send } from "./socket.js";
import { answered, ownAck } from "./controls.js";

// fitBox keeps a diagram readable in a box narrower than the picture: the
// picture scrolls, the lane names stay at the left edge, and the box opens
// on what matters (the present, or an answer's first deciding event).
// What it measures is kept until the picture or the window changes: a
// read of layout after a write costs a slow phone a layout of the page.
const measured = new WeakMap();
let measures = 0; // a new window size makes every kept measure stale

// remeasure forgets every kept measure: the window changed size.
export function remeasure() { measures++; }

export function measure(box, svg) {
  let m = measured.get(box);
  if (m && m.svg === svg && m.gen === measures) return m;
  const units = Number(box.dataset.width) || svg.viewBox.baseVal.width;
  m = { svg, gen: measures, k: svg.getBoundingClientRect().width / units, room: box.scrollWidth - box.clientWidth, width: box.clientWidth, left: box.scrollLeft };
  measured.set(box, m);
  return m;
}

// after is the room the view keeps right of the present, in pixels;
// column is the lane names' width, in the picture's units.
const after = 96, column = 112;

export function fitBox(box) {
  const svg = box.querySelector("svg.diagram");
  if (!svg) return;
  const old = measured.get(box);
  const fresh = !old || old.svg !== svg || old.gen !== measures;
  const m = measure(box, svg);
  const lanes = svg.querySelector(".lanes-fixed");
  if (!box.dataset.fitted) {
    box.dataset.fitted = "1";
    box.addEventListener("scroll", () => { const n = measured.get(box); if (n) { n.left = box.scrollLeft; fitLanes(box); } }, { passive: true });
  }
  let left = m.left;
  if (m.room > 1) {
    const x = Number(box.dataset.focus) * m.k;
    const names = 118 * m.k;
    if (box.classList.contains("zoomed")) {
      // An answer's outcome in the middle of what the lane names leave.
      left = Math.max(0, x - names - (m.width - names) / 2);
    } else if (fresh || x < left + names || x > left + m.width - after) {
      // The present near the right edge, with room after it for the words
      // of what just happened ("7 bahaya" beside a write at the present);
      // a live picture, once fitted, scrolls only when the present would
      // leave the view, and then by half of the view, not on every frame.
      left = Math.max(0, x - m.width + after + (fresh ? 0 : (m.width - names - after) / 2));
    }
    left = Math.round(Math.min(m.room, left));
  }
  const scroll = left !== m.left;
  m.left = left;
  const t = `translate(${left / m.k},0)`;
  const write = () => {
    if (scroll) box.scrollLeft = left;
    if (lanes && lanes.getAttribute("transform") !== t) lanes.setAttribute("transform", t);
    fitTicks(svg, m);
  };
  // Setting scrollLeft lays the page out first: after a frame's writes,
  // the box scrolls (and its lane names follow) once that frame is
  // painted, when the layout is clean.
  if (scroll && !fresh) setTimeout(write, 0);
  else write();
}

export function fitAll(root) { root.querySelectorAll(".diagram-box").forEach(fitBox); }

// scrollDue says whether fitBox would scroll box for a present at x
// (units): a play frame within a second writes the box's focus only
// then.
export function scrollDue(box, x) {
  const m = box && measured.get(box), svg = box && box.querySelector("svg.diagram");
  if (!m || m.svg !== svg || m.gen !== measures || box.classList.contains("zoomed")) return true;
  const at = x * m.k;
  return m.room > 1 && (at < m.left + 118 * m.k || at > m.left + m.width - after);
}

// fitLanes keeps the lane names at the left edge of a box the student
// scrolls.
function fitLanes(box) {
  const m = measured.get(box), svg = box.querySelector("svg.diagram");
  const lanes = svg && svg.querySelector(".lanes-fixed");
  const t = m && `translate(${m.left / m.k},0)`;
  if (lanes && m.svg === svg && lanes.getAttribute("transform") !== t) lanes.setAttribute("transform", t);
  if (m && m.svg === svg) fitTicks(svg, m);
}

// fitTicks hides the time axis's labels that the box's edges would cut
// and those whose tick is under the lane names (its grid line hidden),
// from their attributes alone: a label is about 7 units a character
// wide, centred on its tick or ending where its x says.
function fitTicks(svg, m) {
  const left = m.left / m.k, right = (m.left + m.width) / m.k;
  for (const t of svg.querySelectorAll("[id$='-ticks'] > text")) {
    const x = Number(t.getAttribute("x")), w = 7 * t.textContent.length;
    const lo = t.getAttribute("text-anchor") === "end" ? x - w : x - w / 2;
    const cut = m.room > 1 && (lo < left || lo + w > right || x < left + column);
    if (cut !== t.hasAttribute("visibility")) {
      if (cut) t.setAttribute("visibility", "hidden");
      else t.removeAttribute("visibility");
    }
  }
}

export const liveBox = () => document.getElementById("live-box");

// syncNow draws a live picture's "now" line over it, as a layer of its
// own that a transform moves (.nowlayer in static/app.css). The layer
// follows the picture's own line, hidden, reading only attributes and
// texts, never layout (the scale is measure's).
export function syncNow(box, at, keepWords) {
  const svg = box && box.querySelector("svg.diagram");
  const g = svg && svg.querySelector(".nowline");
  let layer = box && box.querySelector(":scope > .nowlayer");
  if (!g) {
    if (layer) layer.hidden = true;
    return;
  }
  if (!layer) {
    layer = document.createElement("div");
    layer.className = "nowlayer";
    layer.setAttribute("aria-hidden", "true");
    layer.append(document.createElement("span"));
    box.append(layer);
    box.classList.add("nowlayered");
  }
  layer.hidden = false;
  const m = measure(box, svg), line = g.querySelector("line"), text = g.querySelector("text");
  const y1 = Number(line?.getAttribute("y1")), y2 = Number(line?.getAttribute("y2"));
  const side = text?.getAttribute("text-anchor") || "middle";
  const geo = `${m.k} ${y1} ${y2} ${side}`;
  if (layer.dataset.geo !== geo) {
    layer.dataset.geo = geo;
    layer.dataset.side = side;
    layer.style.top = `${y1 * m.k}px`;
    layer.style.height = `${Math.max(0, y2 - y1) * m.k}px`;
    layer.style.fontSize = `${13 * m.k}px`;
  }
  const x = at !== undefined ? at : shiftOf(g.getAttribute("transform")) || 0;
  const t = `translateX(${(x * m.k).toFixed(1)}px)`;
  if (!gliding.has(layer) && layer.style.transform !== t) layer.style.transform = t;
  const label = layer.firstChild, words = text ? text.textContent : "";
  if (label.textContent !== words && !(keepWords && label.textContent)) label.textContent = words;
}

// gliding holds the "now" layers an animation moves (steer's glide):
// syncNow leaves their place to it.
const gliding = new WeakSet();

// shiftOf is the x of an SVG transform "translate(x,y)", NaN without one.
export function shiftOf(transform) {
  return Number(/translate\(\s*(-?[\d.]+)/.exec(transform || "")?.[1]);
}

// seconds is a Go duration's length ("1m2.4s", "300ms") in seconds.
export function seconds(d) {
  let n = 0;
  for (const [, v, u] of String(d).matchAll(/(-?[\d.]+)(h|ms|m|s|µs|us|ns)/g)) {
    n += Number(v) * { h: 3600, m: 60, s: 1, ms: 1e-3, "µs": 1e-6, us: 1e-6, ns: 1e-9 }[u];
  }
  return n;
}

// Once play frames of a second or more keep to one straight line, an
// animation moves the layer (glide); a frame off the line, a pause, a
// new size or a lost connection stops it (halt). lab.track is {n0, x0,
// n, x}: the first and last frame (second, x) of a straight run;
// lab.glide {layer, k, x, got, v, anim}: at got (ms) the line was at x,
// moving v units a ms.
export function halt(lab, keepPlace) {
  lab.track = null;
  stopGlide(lab, keepPlace);
}

function stopGlide(lab, keepPlace) {
  if (!lab.glide) return;
  const { layer, anim } = lab.glide;
  lab.glide = null;
  gliding.delete(layer);
  if (keepPlace) try { anim.commitStyles(); } catch { /* not rendered: the next frame places it */ }
  anim.cancel();
}

// steer takes a playing frame that moved the line (x) and says whether
// the glide has the layer there (within 3 units: x is whole units);
// else it starts one, if the frames make a straight line long enough,
// or stops it. A frame is steered once (quiet, then applyInbox, ask).
export function steer(lab, m) {
  if (m !== lab.steered) [lab.steered, lab.steeredTo] = [m, steer1(lab, m)];
  return lab.steeredTo;
}

function steer1(lab, m) {
  const box = liveBox(), svg = box && box.querySelector("svg.diagram");
  const layer = box && box.querySelector(":scope > .nowlayer");
  if (!layer || layer.hidden || !svg || lab.still.matches || m.now === undefined) { halt(lab); return false; }
  const n = seconds(m.now), x = m.x, k = measure(box, svg).k;
  // The frames keep to a straight line when the last one before this
  // lies on the line from the first to this one (within the rounding
  // of the server's whole units).
  const t = lab.track, g = lab.glide;
  if (!t || n <= t.n || x < t.x || (t.n > t.n0 && Math.abs(t.x - t.x0 - (x - t.x0) * (t.n - t.n0) / (n - t.n0)) > 1.5)) {
    halt(lab);
    lab.track = { n0: n, x0: x, n, x };
    return false;
  }
  t.n = n;
  t.x = x;
  if (g && g.layer === layer && g.k === k && Math.abs(g.x + g.v * (m.got - g.got) - x) <= 3) return true;
  if (n - t.n0 < 1 || x <= t.x0) { stopGlide(lab); return false; }
  // (Re)aimed with the slope of the whole run so far.
  const v = (x - t.x0) / (n - t.n0) * Number(lab.speed.value) / 1000;
  const now = performance.now(), from = x + v * (now - m.got), long = 20000;
  const px = (u) => `translateX(${(u * k).toFixed(1)}px)`;
  stopGlide(lab);
  const anim = layer.animate([{ transform: px(from) }, { transform: px(from + v * long) }], { duration: long, easing: "linear", fill: "forwards" });
  lab.glide = { layer, k, x, got: m.got, v, anim };
  gliding.add(layer);
  return true;
}

// What comes is drawn once per animation frame, a play frame once the
// page has rested nine times as long as the last batch kept it busy (at
// most 2 s). A slow page (batches of 8 ms or more) draws a world playing
// at 1× or faster once a second. The server is asked for play frames as
// far apart as the page can take them (every: 0.2 to 1 s).
const slow = (lab) => lab.cost >= 8 && Number(lab.speed.value) >= 1;

// receive takes a message from the socket, in order.
export function receive(lab, m) {
  if (!lab.queued && !lab.inbox.length && quiet(lab, m)) { sample(lab, performance.now() - m.got); return; }
  lab.inbox.push(m);
  later(lab);
}

// pace takes what a drawn batch cost (ms, to its paint), sample what
// any message cost.
function pace(lab, took) {
  lab.cost = lab.cost ? 0.7 * lab.cost + 0.3 * took : took;
  sample(lab, took);
}

function sample(lab, took) {
  lab.perMsg = lab.perMsg ? 0.7 * lab.perMsg + 0.3 * took : took;
  const every = Math.min(1, Math.max(0.2, Math.ceil(lab.perMsg / 20) / 5));
  if (every === lab.asked) return;
  lab.asked = every;
  if (lab.playing && !lab.pausing) send(lab, { type: "play", every });
}

// later asks for the inbox to be drawn: in the next animation frame, a
// play frame once the page has rested (a hidden page has no animation
// frames: a task does it there). An answer to the student's own command
// on a world that does not play is drawn as it arrives: its work is done
// while the frame that shows it is due, not after that frame begins.
export function later(lab) {
  if (lab.queued) return;
  const urgent = lab.inbox.some((m) => m.type !== "frame" || !m.playing);
  const wait = urgent ? 0 : lab.restUntil - performance.now();
  if (wait > 0) {
    if (!lab.restTimer) lab.restTimer = setTimeout(() => { lab.restTimer = 0; later(lab); }, wait);
    return;
  }
  clearTimeout(lab.restTimer);
  lab.restTimer = 0;
  lab.queued = true;
  if (document.hidden) setTimeout(() => applyInbox(lab), 0);
  else if (lab.inbox.every((m) => !m.playing && m.type !== "frame" && lab.sent.has(m.id))) applyInbox(lab, true);
  else requestAnimationFrame(() => applyInbox(lab));
}

// quiet takes a play frame, arriving with nothing else waiting, within
// the second shown while the glide has the line where the frame says,
// that only tells the time, or any such frame on a slow page: its ops
// wait, and no animation frame is asked for. (Once a frame waits whole,
// those after it in the second do too.)
function quiet(lab, m) {
  if (m.type !== "frame" || !m.playing || m.now === undefined || Math.floor(seconds(m.now)) !== lab.shownSecond) return false;
  if (m.x !== undefined && !(steer(lab, m) && !scrollDue(liveBox(), m.x))) return false;
  if (slow(lab) || lab.lateFrames.length) {
    lab.lateFrames.push(m);
    return true;
  }
  const ops = clockOps(m);
  if (!ops.every((o) => waits(o, true))) return false;
  for (const o of ops) lab.lateText.set(o.target, { o, el: document.getElementById(o.target) });
  answered(lab, m);
  return true;
}

// applyInbox draws what came, in one batch. While the world plays, the
// words that tell its time change when its second does: a play frame or
// an ack (without a time: of the second shown) within the same second
// moves only the line. An answer drawn as it arrived (arrived) does not
// pace play: its paint is still to come.
export function applyInbox(lab, arrived) {
  lab.queued = false;
  const batch = lab.lateFrames.concat(lab.inbox.splice(0));
  lab.lateFrames = [];
  if (!batch.length) return;
  const start = performance.now();
  const hold = batch.every((m) => m.playing) && !rows(lab);
  if (!hold) putHeldRows(lab);
  const timed = batch.findLast((m) => m.now !== undefined);
  const sec = timed ? Math.floor(seconds(timed.now)) : lab.shownSecond;
  const tick = sec === lab.shownSecond && batch.every((m) => m.playing && (m.type === "frame" || m.type === "ack"));
  // A pause stops the glide before its frame places the layer; the last
  // playing frame that moved the line steers it (steer).
  const mover = batch.findLast((m) => m.x !== undefined);
  if (!batch[batch.length - 1].playing) halt(lab);
  else if (mover?.playing) steer(lab, mover);
  const inView = !mover || !scrollDue(liveBox(), mover.x); // the box need not scroll
  const onGlide = !!lab.glide && !!mover && inView;
  if (tick && lab.glide && inView && slow(lab) && batch.every((m) => m.type === "frame" || ownAck(lab, m) && !m.ops?.length)) {
    lab.lateFrames = batch; // a slow page's second, drawn when the next comes (quiet)
    return;
  }
  if (!arrived) setTimeout(() => { // after this frame is painted
    const end = performance.now();
    lab.restUntil = end + Math.min(2000, 9 * (end - start));
    pace(lab, end - start);
  }, 0);
  let ops = batch.flatMap(clockOps);
  if (!tick) {
    ops = takeLate(lab, ops);
    lab.shownSecond = sec;
  }
  draw(lab, batch, ops, tick, hold, onGlide);
}

// draw carries out a batch's ops, then fits the diagrams, places the
// "now" layer, shows the newest rows, the answers and the class bar.
function draw(lab, batch, ops, tick, hold, onGlide) {
  const refit = new Set();
  let events = null;
  applyOps(lab, ops, tick, hold, onGlide, (o, el) => {
    if (o.target === "events") events = el;
    if (o.target === "diagram" || o.target.startsWith("live-")) refit.add("diagram");
    if (o.target === "pair-live") refit.add("pair-live");
    if (o.target.includes("verdict")) {
      lab.onVerdict(el);
      fitAll(el);
    }
  });
  for (const id of refit) fitAll(document.getElementById(id));
  // Within a second the layer goes where the line's move that waits says.
  const line = lab.lateText.get("live-nowline");
  const x = line && line.el === document.getElementById("live-nowline") ? shiftOf(line.o.html) : NaN;
  // (A batch that shows the time brings the layer's words up to the
  // picture's even if it changed nothing of the picture.)
  if (refit.has("diagram") || !tick) syncNow(liveBox(), Number.isNaN(x) ? undefined : x, tick);
  // Scrolled after the paint, when reading its height costs no layout.
  if (events && events.closest("details")?.open !== false) setTimeout(() => showLatest(events), 0);
  for (const m of batch) answered(lab, m);
  const bar = batch.findLast((m) => m.type === "class");
  if (bar) lab.onClass(bar.html);
}

// followPlay follows a new speed, a new window size, the page hidden.
export function followPlay(lab) {
  addEventListener("resize", () => { remeasure(); halt(lab, true); fitAll(document); syncNow(liveBox()); });
  document.addEventListener("visibilitychange", () => {
    if (document.hidden && lab.inbox.length) setTimeout(() => applyInbox(lab), 0);
  });
  lab.speed.addEventListener("change", () => {
    halt(lab, true);
    if (lab.playing && !lab.pausing) send(lab, { type: "play", speed: Number(lab.speed.value) });
  });
}

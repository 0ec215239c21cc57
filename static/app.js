// leaselab's one script. Pages work without it: every control is a form
// that reloads the page with the command in its address. With it, a lab
// keeps one websocket open and the server sends rendered fragments
// (see docs/protocol.md). Progress lives in this browser's storage.

document.documentElement.classList.add("js");

const PROGRESS = "leaselab.progress";

// Progress, per lab: "q:ID" and "g:ID" and "challenge" are true once right
// or reached; "a:ID" is the choice last sent for question ID; "h:ID" the
// hints of question ID opened.
function loadProgress() {
  try { return JSON.parse(localStorage.getItem(PROGRESS)) || {}; } catch { return {}; }
}

function storeProgress(p) {
  try { localStorage.setItem(PROGRESS, JSON.stringify(p)); } catch { /* private mode */ }
}

function labProgress(labID, change) {
  const p = loadProgress();
  const lab = (p[labID] ||= {});
  change(lab);
  storeProgress(p);
}

function saveVerdicts(labID, root) {
  labProgress(labID, (lab) => {
    for (const v of root.querySelectorAll(".verdict[data-correct]")) {
      const key = v.dataset.question ? "q:" + v.dataset.question : v.dataset.goal ? "g:" + v.dataset.goal : "challenge";
      lab[key] = lab[key] || v.dataset.correct === "true";
    }
  });
}

function done(lab) {
  return Object.entries(lab || {}).filter(([k, v]) => v === true && (k.startsWith("q:") || k.startsWith("g:") || k === "challenge")).length;
}

// showProgress marks the labs in a list (home, lesson) with what is done.
function showProgress() {
  const p = loadProgress();
  for (const item of document.querySelectorAll(".lab-item[data-lab]")) {
    const n = done(p[item.dataset.lab]);
    const out = item.querySelector(".progress");
    if (out && n > 0) out.textContent = `✓ ${n}/${out.dataset.total}`;
  }
}

// fitBox keeps a diagram readable in a box narrower than the picture: the
// picture scrolls, the lane names stay at the left edge, and the box opens
// on what matters (the present, or an answer's first deciding event).
// What it measures of a box is kept until the picture or the window
// changes, so a live frame that only moves the present writes the scroll
// and reads no layout: on a slow phone a read after a write costs a whole
// layout of the page.
const measured = new WeakMap();
let measures = 0; // a new window size makes every kept measure stale

function measure(box, svg) {
  let m = measured.get(box);
  if (m && m.svg === svg && m.gen === measures) return m;
  const units = Number(box.dataset.width) || svg.viewBox.baseVal.width;
  m = { svg, gen: measures, k: svg.getBoundingClientRect().width / units, room: box.scrollWidth - box.clientWidth, width: box.clientWidth, left: box.scrollLeft };
  measured.set(box, m);
  return m;
}

// after is the room the view keeps right of the present, in pixels.
const after = 96;

function fitBox(box) {
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
  };
  // Setting scrollLeft lays the page out first: after a frame's writes,
  // the box scrolls (and its lane names follow) once that frame is
  // painted, when the layout is clean.
  if (scroll && !fresh) setTimeout(write, 0);
  else write();
}

// scrollDue says whether fitBox would scroll box for a present at x
// (units): a play frame within a second writes the box's focus only
// then.
function scrollDue(box, x) {
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
}

// syncNow draws a live picture's "now" line over it, as a layer of its
// own that a transform moves (the page's part of nowLayer in
// static/app.css). The picture keeps its own line, hidden, and frames
// still move it and write its label: the layer follows them, reading
// only attributes and texts, never layout (the scale is measure's). A
// play frame that only moves the present then costs a slow phone no
// layout and no paint of the picture, only the compositor's move.
function syncNow(box, at, keepWords) {
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

// gliding holds the "now" layers an animation moves (startLab's glide):
// syncNow leaves their place to it.
const gliding = new WeakSet();

// shiftOf is the x of an SVG transform "translate(x,y)", NaN without one.
function shiftOf(transform) {
  return Number(/translate\(\s*(-?[\d.]+)/.exec(transform || "")?.[1]);
}

// seconds is a Go duration's length ("1m2.4s", "300ms") in seconds.
function seconds(d) {
  let n = 0;
  for (const [, v, u] of String(d).matchAll(/(-?[\d.]+)(h|ms|m|s|µs|us|ns)/g)) {
    n += Number(v) * { h: 3600, m: 60, s: 1, ms: 1e-3, "µs": 1e-6, us: 1e-6, ns: 1e-9 }[u];
  }
  return n;
}

// applyOp carries out one of a frame's ops on its target (docs/protocol.md).
function applyOp(el, o) {
  switch (o.op) {
    case "append": el.insertAdjacentHTML("beforeend", o.html); break;
    case "swap": el.outerHTML = o.html; break;
    case "remove": el.remove(); break;
    case "text": el.textContent = o.html; break;
    case "attr": el.setAttribute(o.attr, o.html); break;
    default: el.innerHTML = o.html;
  }
}

// clockOps are a message's ops, after those its time and its "now" line's
// place stand for (at and x, docs/protocol.md): a play frame that only
// moves time sends those two instead of four ops.
function clockOps(m) {
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

function showLatest(list) { list.scrollTop = list.scrollHeight; }

function fitAll(root) { root.querySelectorAll(".diagram-box").forEach(fitBox); }

function startLab(root) {
  const labID = root.dataset.lab;
  const conn = document.getElementById("conn");
  const errBox = document.getElementById("cmd-error");
  const play = document.getElementById("play");
  const speed = document.getElementById("speed");
  let query = root.dataset.query;
  let ws = null, seq = 0, nextID = 1, retry = 500, playing = false, fresh = true, pausing = 0;

  saveVerdicts(labID, document);
  fitAll(document);
  const liveBox = () => document.getElementById("live-box");
  syncNow(liveBox());
  addEventListener("resize", () => { measures++; halt(true); fitAll(document); syncNow(liveBox()); });
  keepHints(labID);
  keepAnswers(labID);
  // While the world plays and the event list is closed, the server leaves
  // its new rows out of the frames (play's rows): a closed list costs a
  // playing page nothing, on the wire or on the main thread. Opening it
  // while playing asks for them; pausing brings them too. Rows that were
  // on their way as the list closed (and a row's swap, when a later event
  // shows it did harm) wait here, a replace dropping what waited before
  // it, and go in first when the list opens or the world stops.
  const eventBox = document.querySelector("details.eventbox");
  const rows = () => !eventBox || eventBox.open;
  let heldRows = [];
  function putHeldRows() {
    for (const o of heldRows.splice(0)) {
      const el = document.getElementById(o.target);
      if (el) applyOp(el, o);
    }
  }
  if (eventBox) {
    eventBox.addEventListener("toggle", () => {
      if (playing && !pausing) send({ type: "play", rows: rows() });
      const l = eventBox.querySelector(".events");
      if (!eventBox.open || !l) return;
      putHeldRows();
      showLatest(l);
    });
  }

  // setConn shows the connection's state: on, off, idle or full.
  function setConn(state) {
    conn.textContent = conn.dataset[state];
    conn.classList.toggle("on", state === "on");
  }

  // A dropped connection comes back by itself, after a random part of a
  // growing delay so that a classroom does not reconnect all at once.
  // The session is in the address (query), so any server rebuilds it.
  function connect() {
    const proto = location.protocol === "https:" ? "wss:" : "ws:";
    // The page as the server drew it shows the session its address holds:
    // its first connection says so (have=1), and the first frame brings
    // no copy of what the page has. A reconnect gets the whole page again.
    const have = fresh && query === root.dataset.query ? "&have=1" : "";
    fresh = false;
    ws = new WebSocket(`${proto}//${location.host}${root.dataset.ws}?${query}${have}`);
    seq = 0;
    const resumePlay = playing;
    ws.onopen = () => {
      retry = 500;
      barStream(false); // the class bar comes over the socket now
      for (const id of [...pressed.keys()]) settle(id);
      setConn("on");
      if (resumePlay) send({ type: "play", speed: Number(speed.value), every: asked, rows: rows() });
      restoreVerdicts();
    };
    ws.onclose = (ev) => {
      ws = null;
      halt(true);
      pausing = 0; // its ack will not come; the replay's first frame says where play is
      barStream(true); // until the socket is back
      if (ev.code === 4000) { // idle: back when the student is
        setConn("idle");
        const back = () => {
          removeEventListener("keydown", back, true);
          removeEventListener("pointerdown", back, true);
          if (!ws) connect();
        };
        addEventListener("keydown", back, true);
        addEventListener("pointerdown", back, true);
        return;
      }
      let wait = retry * (0.5 + Math.random());
      if (ev.code === 1013) { setConn("full"); wait = 5000 + Math.random() * 10000; }
      else setConn("off");
      setTimeout(connect, wait);
      retry = Math.min(retry * 2, 8000);
    };
    ws.onmessage = (ev) => {
      const got = performance.now(), m = JSON.parse(ev.data);
      if (m.seq !== seq + 1) { ws.close(); return; } // a gap: resume by replay
      seq = m.seq;
      m.got = got;
      if (!queued && !inbox.length && quiet(m)) { sample(performance.now() - got); return; }
      inbox.push(m);
      later();
    };
  }

  // Messages are put into the page once per animation frame: a slow
  // phone that falls behind shows the frames that came meanwhile in one
  // layout and one paint, and an op that a later one in the same batch
  // overwrites is not carried out. A hidden page has no animation frames,
  // so there a task does it.
  // A play frame also waits until the page has rested nine times as long
  // as the last batch kept it busy (script, style, layout and paint), at
  // most two seconds: playing takes about a tenth of a slow phone's main
  // thread even when a batch costs it 200 ms, and a fast one, resting a
  // few ms, sees every frame.
  // Anything else (an answer to the student, a paused world's frame) goes
  // into the next animation frame.
  // The server is asked for play frames as far apart as the page can take
  // them (every, in seconds: 0.2 to 1, in steps of 0.2): 20 ms of the
  // main thread a message on average (drawn batches and quiet frames
  // alike) is a frame every 0.2 s; frames that would only wait for the
  // rest cost the phone their arrival and their bytes on the wire.
  // A slow page (its batches cost 8 ms or more: a budget phone, not a
  // laptop) draws a world playing at 1× or faster once a second: a play
  // frame within the second it shows, while the glide has the line where
  // the frame says, waits whole (lateFrames), in order, with the acks of
  // the page's own play messages that bring nothing (its pace), and goes
  // in first with the next second, a pause, or anything that answers the
  // student or brings what the page asked for (an opened event list's
  // rows). Each drawn batch costs a slow phone about 10 ms however little
  // it changes (its style, layout, paint and layers); a renewal burst's
  // frames then cost it one batch a second instead of one a frame, and
  // the frames between cost it their arrival alone.
  // (At half speed a second of the world lasts two: such a page draws as
  // the frames come, resting as ever.)
  const slow = () => cost >= 8 && Number(speed.value) >= 1;
  const inbox = [];
  let lateFrames = []; // a slow page's play frames within the second shown, until the next (quiet, applyInbox)
  const lateText = new Map(); // target → {o: its op, el: its element}: a playing second's words and line, until the next (applyInbox)
  let lateChart = []; // a playing second's changes to the renewal chart, in order, until the next (applyInbox)
  let shownSecond = NaN;
  let queued = false, restUntil = 0, restTimer = 0, cost = 0, perMsg = 0, asked = 0.2;
  // pace takes what a drawn batch cost (ms, to its paint), sample what
  // any message cost.
  function pace(took) {
    cost = cost ? 0.7 * cost + 0.3 * took : took;
    sample(took);
  }
  function sample(took) {
    perMsg = perMsg ? 0.7 * perMsg + 0.3 * took : took;
    const every = Math.min(1, Math.max(0.2, Math.ceil(perMsg / 20) / 5));
    if (every === asked) return;
    asked = every;
    if (playing && !pausing) send({ type: "play", every });
  }
  function later() {
    if (queued) return;
    const urgent = inbox.some((m) => m.type !== "frame" || !m.playing);
    const wait = urgent ? 0 : restUntil - performance.now();
    if (wait > 0) {
      if (!restTimer) restTimer = setTimeout(() => { restTimer = 0; later(); }, wait);
      return;
    }
    clearTimeout(restTimer);
    restTimer = 0;
    queued = true;
    if (document.hidden) setTimeout(applyInbox, 0);
    else requestAnimationFrame(applyInbox);
  }
  document.addEventListener("visibilitychange", () => {
    if (document.hidden) { if (inbox.length) setTimeout(applyInbox, 0); flushQuery(); }
  });

  // While the world plays, its "now" line moves at a steady pace: so many
  // units of the picture a second of its time (the picture's scale), so
  // many of its seconds a second (the speed). Once the frames of a
  // second or more have kept to one straight line, the page hands the
  // layer's move to an animation the compositor runs (glide), and a play
  // frame that finds the line where the animation has it (within three
  // units: the server's x is whole units) changes nothing on the page
  // until its second changes: no style, layout or paint, and the line
  // moves smoothly between frames instead of in steps. A frame off that
  // line (a command that moved time, the picture's window moving on, a
  // new speed), a pause, a new size or a lost connection stops the
  // glide (halt), and the frames move the layer again until they make a
  // straight line anew. A student who asks for less motion gets the
  // steps.
  const still = matchMedia("(prefers-reduced-motion: reduce)");
  let track = null; // {n0, x0, n, x}: the first and last frame (second, x) of a straight run
  let glide = null; // {layer, k, x, got, v, anim}: at got (ms) the line was at x, moving v units a ms
  function halt(keepPlace) {
    track = null;
    stopGlide(keepPlace);
  }
  function stopGlide(keepPlace) {
    if (!glide) return;
    const { layer, anim } = glide;
    glide = null;
    gliding.delete(layer);
    if (keepPlace) try { anim.commitStyles(); } catch { /* not rendered: the next frame places it */ }
    anim.cancel();
  }
  // steer takes a playing frame that moved the line (x) and says whether
  // the glide has the layer there; else it starts one, if the frames make
  // a straight line long enough, or stops it. A frame is steered once
  // (quiet, then applyInbox, may both ask).
  let steered = null, steeredTo = false;
  function steer(m) {
    if (m !== steered) [steered, steeredTo] = [m, steer1(m)];
    return steeredTo;
  }
  function steer1(m) {
    const box = liveBox(), svg = box && box.querySelector("svg.diagram");
    const layer = box && box.querySelector(":scope > .nowlayer");
    if (!layer || layer.hidden || !svg || still.matches || m.now === undefined) { halt(); return false; }
    const n = seconds(m.now), x = m.x, k = measure(box, svg).k;
    // The frames keep to a straight line when the last one before this
    // lies on the line from the first to this one (within the rounding
    // of the server's whole units).
    const t = track;
    if (!t || n <= t.n || x < t.x || (t.n > t.n0 && Math.abs(t.x - t.x0 - (x - t.x0) * (t.n - t.n0) / (n - t.n0)) > 1.5)) {
      halt();
      track = { n0: n, x0: x, n, x };
      return false;
    }
    t.n = n;
    t.x = x;
    if (glide && glide.layer === layer && glide.k === k && Math.abs(glide.x + glide.v * (m.got - glide.got) - x) <= 3) return true;
    if (n - t.n0 < 1 || x <= t.x0) { stopGlide(); return false; }
    // (Re)aimed with the slope of the whole run so far.
    const v = (x - t.x0) / (n - t.n0) * Number(speed.value) / 1000;
    const now = performance.now(), from = x + v * (now - m.got), long = 20000;
    const px = (u) => `translateX(${(u * k).toFixed(1)}px)`;
    stopGlide();
    const anim = layer.animate([{ transform: px(from) }, { transform: px(from + v * long) }], { duration: long, easing: "linear", fill: "forwards" });
    glide = { layer, k, x, got: m.got, v, anim };
    gliding.add(layer);
    return true;
  }

  // waits says whether an op of a play frame within the second shown
  // waits for the next second (lateText): the words that tell the time,
  // the picture's hidden line, and, while the glide has the layer, the
  // box's focus.
  const waits = (o, onGlide) => (o.op === "text" && (o.target === "now" || o.target === "live-nowat" || /^cmd-\d+$/.test(o.target))) ||
    (o.op === "attr" && o.target === "live-nowline") || (onGlide && o.op === "attr" && o.target === "live-box" && o.attr === "data-focus");
  // quiet takes a play frame, arriving with nothing else waiting, within
  // the second the page shows while the glide has the line where the
  // frame says, that only tells the time, or any such frame on a slow
  // page: all its ops wait, and the page asks for no animation frame at
  // all (no style, layout or paint). (Once a frame waits whole, those
  // after it in the second do too: they go in after it.)
  function quiet(m) {
    if (m.type !== "frame" || !m.playing || m.now === undefined || Math.floor(seconds(m.now)) !== shownSecond) return false;
    if (m.x !== undefined && !(steer(m) && !scrollDue(liveBox(), m.x))) return false;
    if (slow() || lateFrames.length) {
      lateFrames.push(m);
      return true;
    }
    const ops = clockOps(m);
    if (!ops.every((o) => waits(o, true))) return false;
    for (const o of ops) lateText.set(o.target, { o, el: document.getElementById(o.target) });
    answered(m);
    return true;
  }

  function applyInbox() {
    queued = false;
    const batch = lateFrames.concat(inbox.splice(0));
    lateFrames = [];
    if (!batch.length) return;
    const start = performance.now();
    const hold = batch.every((m) => m.playing) && !rows();
    if (!hold) putHeldRows();
    // While the world plays, the words that tell its time (the clock, the
    // "now" label, the last step's "advance") change when its second
    // does: a play frame within the same second moves only the line,
    // which costs a slow phone no layout and no paint. An ack while
    // playing waits too (the page's own pacing asks for them; a command
    // that moves time moves the second). Anything else (an error, a
    // pause, a frame of a new second) shows them at once.
    // (An ack without a time, as the page's pacing gets, is of the
    // second shown.)
    const timed = batch.findLast((m) => m.now !== undefined);
    const sec = timed ? Math.floor(seconds(timed.now)) : shownSecond;
    const tick = sec === shownSecond && batch.every((m) => m.playing && (m.type === "frame" || m.type === "ack"));
    // A pause stops the glide before its frame places the layer; the last
    // playing frame that moved the line steers it (steer).
    const mover = batch.findLast((m) => m.x !== undefined);
    if (!batch[batch.length - 1].playing) halt();
    else if (mover?.playing) steer(mover);
    const inView = !mover || !scrollDue(liveBox(), mover.x); // the box need not scroll
    const onGlide = !!glide && !!mover && inView;
    if (tick && glide && inView && slow() && batch.every((m) => m.type === "frame" || ownAck(m) && !m.ops?.length)) {
      lateFrames = batch; // a slow page's second, drawn when the next comes (quiet)
      return;
    }
    setTimeout(() => { // after this frame is painted
      const end = performance.now();
      restUntil = end + Math.min(2000, 9 * (end - start));
      pace(end - start);
    }, 0);
    // What waited goes in first, unless its target was drawn anew since
    // (then the new one is newer than what waited).
    const ops = [];
    if (!tick) {
      for (const h of lateText.values()) if (document.getElementById(h.o.target) === h.el) ops.push(h.o);
      lateText.clear();
      ops.push(...lateChart.splice(0));
      shownSecond = sec;
    }
    for (const m of batch) ops.push(...clockOps(m));
    // The last replace, swap, text or attr of a target is the one that
    // shows.
    const last = new Map();
    ops.forEach((o, i) => { if (o.op !== "append" && o.op !== "remove") last.set(o.op + " " + o.target + " " + (o.attr || ""), i); });
    const refit = new Set();
    let events = null;
    ops.forEach((o, i) => {
      if (o.op !== "append" && o.op !== "remove" && last.get(o.op + " " + o.target + " " + (o.attr || "")) !== i) return;
      if (tick && waits(o, onGlide)) {
        lateText.set(o.target, { o, el: document.getElementById(o.target) });
        return;
      }
      // The renewal chart, a picture of its own, changes once a second
      // too: a renewal's dot and the sums cost a slow phone about 6 ms
      // more in a frame with the renewal's marks (TestFrameCost's
      // mark+chart), once for the whole second when they wait. They wait
      // in order; a redrawn chart drops what waited before it.
      if (tick && (o.target === "chart" || o.target.startsWith("live-chart-"))) {
        if (o.target === "chart") lateChart = [];
        lateChart.push(o);
        return;
      }
      if (hold && (o.target === "events" || o.target.startsWith("events-"))) {
        if (o.target === "events" && o.op === "replace") heldRows = [];
        heldRows.push(o);
        return;
      }
      const el = document.getElementById(o.target);
      if (!el) return;
      applyOp(el, o);
      if (o.target === "events") events = el;
      if (o.target === "diagram" || o.target.startsWith("live-")) refit.add("diagram");
      if (o.target === "pair-live") refit.add("pair-live");
      if (o.target.includes("verdict")) {
        saveVerdicts(labID, el);
        fitAll(el);
      }
    });
    for (const id of refit) fitAll(document.getElementById(id));
    // Within a second the hidden line is not moved (its move waits with
    // the words): the layer goes where the move that waits says.
    const line = lateText.get("live-nowline");
    const x = line && line.el === document.getElementById("live-nowline") ? shiftOf(line.o.html) : NaN;
    // (A batch that shows the time brings the layer's words up to the
    // picture's even if it changed nothing of the picture.)
    if (refit.has("diagram") || !tick) syncNow(liveBox(), Number.isNaN(x) ? undefined : x, tick);
    // The event list shows its newest rows: scrolled when it is open, and
    // after the paint, when reading its height costs no layout.
    if (events && events.closest("details")?.open !== false) setTimeout(() => showLatest(events), 0);
    for (const m of batch) answered(m);
    const bar = batch.findLast((m) => m.type === "class");
    const cur = bar && document.getElementById("classbar");
    if (cur) replaceFrom(cur, bar.html);
  }

  // ownAck says whether m answers a play without a speed: the page's own
  // (its pace, the event list's rows), not the student's.
  function ownAck(m) {
    const q = m.id && sent.get(m.id)?.msg;
    return m.type === "ack" && q?.type === "play" && q.speed === undefined;
  }
  function answered(m) {
    const vote = m.id && sent.get(m.id)?.msg;
    // The page's own play's ack leaves the address to the play frames'
    // timer (every change of address costs a slow phone its icon fetched
    // and drawn again).
    const own = ownAck(m); // (vote is whatever message m answers)
    if (vote?.type === "vote" && !(m.type === "error" && m.retry > 0)) {
      sent.delete(m.id);
      return saidVote(vote.round, m.type === "voted" ? fromHTML(m.html) : m.error);
    }
    if (m.type === "error" && m.retry > 0 && resend(m)) {
      // Over the work budget: the server says when to ask again.
    } else if (m.type === "error") errBox.textContent = m.error;
    else if (m.type === "ack") errBox.textContent = "";
    if (m.id) {
      sent.delete(m.id);
      settle(m.id);
      if (m.id === pausing) pausing = 0;
    }
    if (m.query !== undefined && m.query !== query) {
      query = m.query;
      // A play frame changes the address five times a second, and each
      // change costs a slow phone tens of ms: the address follows play
      // frames every 5 s (and before a click, a key, leaving the page),
      // and an answer to the student as it is shown.
      if ((m.type === "frame" || own) && !queryTimer) queryTimer = setTimeout(flushQuery, 5000);
    }
    // An answer flushes even when its query is the last play frame's (a
    // pause's ack), and a pause puts the session in the address at once:
    // else the address would lag the page for seconds.
    if ((m.type !== "frame" && !own) || (!m.playing && queryTimer)) flushQuery();
    setPlaying(m.playing);
  }

  // flushQuery puts the session's query into the address and the links
  // that carry it.
  let queryTimer = 0, shown = query;
  function flushQuery() {
    clearTimeout(queryTimer);
    queryTimer = 0;
    if (query === shown) return;
    shown = query;
    const url = `${location.pathname}${query ? "?" + query : ""}${location.hash}`;
    history.replaceState(null, "", url);
    const sw = document.getElementById("lang-switch");
    if (sw) sw.href = sw.pathname + (query ? "?" + query : "") + location.hash;
    for (const a of document.querySelectorAll("a[data-base]")) a.href = a.dataset.base + (query ? "?" + query : "");
    root.dispatchEvent(new CustomEvent("live:query", { bubbles: true }));
  }
  // Before a link is followed or copied, or the page is left, the address
  // is the session's (not at every tap: a slow phone pays tens of ms for
  // a change of address).
  addEventListener("pointerdown", (e) => { if (e.target.closest?.("a[href], [data-share]")) flushQuery(); }, true);
  addEventListener("keydown", flushQuery, true);
  addEventListener("pagehide", flushQuery);

  // setPlaying shows whether the world plays. Every play frame says so:
  // the button is written only when that changed (a new text or
  // attribute would cost a slow phone a style and layout pass a frame).
  function setPlaying(on) {
    playing = !!on;
    const pressed = String(playing), words = playing ? "⏸ " + play.dataset.pause : "▶ " + play.dataset.play;
    if (play.getAttribute("aria-pressed") !== pressed) play.setAttribute("aria-pressed", pressed);
    if (play.textContent !== words) play.textContent = words;
  }

  // send returns false when there is no connection, so the caller lets the
  // form submit the ordinary way.
  // sent keeps the messages not yet answered, so that one refused as over
  // the work budget (an error with retry) is sent again when the server
  // says, a few times at most.
  const sent = new Map();
  function send(msg, tries = 0) {
    if (!ws || ws.readyState !== WebSocket.OPEN) return false;
    msg.id = nextID++;
    sent.set(msg.id, { msg, tries });
    ws.send(JSON.stringify(msg));
    return true;
  }
  function resend(m) {
    const s = sent.get(m.id);
    if (!s || s.tries >= 5) return false;
    setTimeout(() => send({ ...s.msg }, s.tries + 1), Math.min(m.retry, 8) * 1000);
    return true;
  }

  function doCmd(cmd) { return send({ type: "do", cmd }); }
  // A class vote goes over this socket while it is open (class mode): the
  // answer, "voted" or an error, comes back with the vote's id.
  labVote = (round, choice, sure) => send({ type: "vote", round: Number(round), choice, sure: sure || undefined });

  // A control shows at once that it was pressed, before the server's
  // answer comes (on a slow network or a busy phone, a while later); the
  // answer, or a new connection, takes the mark away.
  const pressed = new Map();
  function press(b, ok) {
    if (!ok || !b) return;
    b.classList.add("sent");
    pressed.set(nextID - 1, b);
  }
  function settle(id) {
    const b = pressed.get(id);
    if (!b) return;
    pressed.delete(id);
    if (![...pressed.values()].includes(b)) b.classList.remove("sent");
  }

  // withFor adds the duration chosen in the worker's own list to a freeze.
  function withFor(cmd) {
    const w = cmd.startsWith("freeze ") && !cmd.includes("for=") ? cmd.slice(7).trim().split(" ")[0] : "";
    const sel = w && document.querySelector(`select.freeze-for[data-worker="${CSS.escape(w)}"]`);
    return sel && sel.value ? cmd + " for=" + sel.value : cmd;
  }

  // restoreVerdicts asks the engine again for every answer this browser
  // gave before (a reload, another visit, the other language), so its
  // verdict shows with this page's words.
  function restoreVerdicts() {
    const lab = loadProgress()[labID] || {};
    for (const f of document.querySelectorAll("form.answer")) {
      const q = f.dataset.question, choice = lab["a:" + q];
      const box = document.getElementById("verdict-" + q);
      if (!choice || !box || box.querySelector(".verdict")) continue;
      const input = f.querySelector(`input[name=choice][value="${CSS.escape(choice)}"]`);
      if (!input) continue;
      input.checked = true;
      send({ type: "answer", question: q, choice });
    }
  }

  document.getElementById("controls")?.addEventListener("submit", (e) => {
    const b = e.submitter;
    if (!b) return;
    let ok;
    if (b.name === "replay") ok = send({ type: "replay" });
    else ok = doCmd(withFor(b.value));
    press(b, ok);
    if (ok) e.preventDefault();
  });
  for (const f of document.querySelectorAll("form.answer")) {
    f.addEventListener("submit", (e) => {
      const c = f.querySelector("input[name=choice]:checked");
      if (c) labProgress(labID, (lab) => { lab["a:" + f.dataset.question] = c.value; });
      if (c && send({ type: "answer", question: f.dataset.question, choice: c.value })) e.preventDefault();
    });
  }
  for (const f of document.querySelectorAll("form.goalcheck")) {
    f.addEventListener("submit", (e) => {
      // A try: the engine's own shortest schedule may now be asked for.
      for (const s of f.querySelectorAll(".after-try")) s.hidden = false;
      if (send({ type: "goal", goal: f.dataset.goal })) e.preventDefault();
    });
  }
  for (const f of document.querySelectorAll("form.challengeform")) {
    f.addEventListener("submit", (e) => {
      const values = {};
      for (const i of f.querySelectorAll("[data-param]")) values[i.dataset.param] = i.value;
      if (send({ type: "challenge", values })) e.preventDefault();
    });
  }
  // A link that carries a time command (the what-if pair's) sends it
  // instead of loading the page.
  root.addEventListener("click", (e) => {
    const a = e.target.closest("a[data-cmd]");
    if (a && !e.ctrlKey && !e.metaKey && !e.shiftKey && doCmd(a.dataset.cmd)) e.preventDefault();
  });
  // pausing is the id of a pause not yet answered: until its ack, frames
  // sent before it still say "playing", and a change of pace or speed
  // (a play message) would start the world again after the pause.
  play.addEventListener("click", () => {
    const pause = playing && !pausing;
    const ok = send(pause ? { type: "pause" } : { type: "play", speed: Number(speed.value), every: asked, rows: rows() });
    pausing = pause && ok ? nextID - 1 : 0;
    press(play, ok);
  });
  speed.addEventListener("change", () => {
    halt(true);
    if (playing && !pausing) send({ type: "play", speed: Number(speed.value) });
  });

  // Shortcuts never act while a form field has the keys, and the arrows
  // scroll a focused diagram.
  document.addEventListener("keydown", (e) => {
    if (e.ctrlKey || e.metaKey || e.altKey) return;
    if (e.target.closest("input, select, textarea, [contenteditable]")) return;
    if (e.key.startsWith("Arrow") && e.target.closest(".diagram-box, .events")) return;
    const workers = [...document.querySelectorAll("#status [data-worker]")];
    let handled = true;
    if (e.key === " ") { if (e.target.closest("button, a, summary")) return; play.click(); }
    else if (e.key === ".") doCmd("step");
    else if (e.key === "ArrowRight") doCmd(e.shiftKey ? "advance 5s" : "advance 1s");
    else if (e.key === "f" || e.key === "F") {
      const on = (document.getElementById("storage-mode")?.dataset.mode || "") === "fencing";
      doCmd(on ? "fencing off" : "fencing on");
    } else if (e.key === "r" || e.key === "R") doCmd("reset");
    else if (/^[1-9]$/.test(e.key) && workers[Number(e.key) - 1]) {
      const w = workers[Number(e.key) - 1];
      doCmd(withFor((w.dataset.frozen === "true" ? "thaw " : "freeze ") + w.dataset.worker));
    } else handled = false;
    if (handled) e.preventDefault();
  });

  setConn("off");
  connect();
}

// share copies a permalink: the href or value of the element the button
// names. Without the clipboard (plain http off localhost) a hidden input
// and the copy command do it.
document.addEventListener("click", async (e) => {
  const b = e.target.closest("button[data-share]");
  if (!b) return;
  const el = document.querySelector(b.dataset.share);
  if (!el) return;
  const url = el.tagName === "INPUT" ? el.value : new URL(el.getAttribute("href"), location.href).href;
  let ok = false;
  try { await navigator.clipboard.writeText(url); ok = true; } catch { /* not allowed here */ }
  if (!ok) {
    const i = document.createElement("input");
    i.value = url;
    document.body.append(i);
    i.select();
    try { ok = document.execCommand("copy"); } catch { /* nothing more to try */ }
    i.remove();
  }
  if (ok) {
    const was = b.textContent;
    b.textContent = "✓ " + b.dataset.copied;
    setTimeout(() => { b.textContent = was; }, 2000);
  } else if (el.tagName === "INPUT") el.select();
});

// keepHints remembers which hints were opened and opens them again.
function keepHints(labID) {
  const lab = loadProgress()[labID] || {};
  for (const q of document.querySelectorAll(".question[data-question]")) {
    const hints = [...q.querySelectorAll("details.hint")];
    const seen = Number(lab["h:" + q.dataset.question] || 0);
    hints.forEach((h, i) => {
      if (i < seen) h.open = true;
      h.addEventListener("toggle", () => {
        if (!h.open) return;
        labProgress(labID, (l) => { l["h:" + q.dataset.question] = Math.max(Number(l["h:" + q.dataset.question] || 0), i + 1); });
      });
    });
  }
}

// keepAnswers shows, before the engine answers again, what was kept: the
// choice made and the goals reached.
function keepAnswers(labID) {
  const lab = loadProgress()[labID] || {};
  for (const f of document.querySelectorAll("form.answer")) {
    const choice = lab["a:" + f.dataset.question];
    const input = choice && f.querySelector(`input[name=choice][value="${CSS.escape(choice)}"]`);
    if (input && !f.querySelector("input[name=choice]:checked")) input.checked = true;
  }
  for (const g of document.querySelectorAll(".goal[data-goal]")) {
    const out = g.querySelector(".kept");
    if (out && lab["g:" + g.dataset.goal] === true) out.hidden = false;
  }
}

// ---- What if? and the share field (issue 13) ----
// The what-if pair page (#pair) plays live through startLab, over its own
// socket: only time moves a pair, so its controls are play and the time
// links. After each batch of messages the redrawn diagrams are fitted;
// when the address follows the pair, the links point at it (they still
// work if the socket drops) and the share field holds it.

// keepShare puts the page's own address in the share field.
function keepShare() {
  const f = document.getElementById("share-here");
  if (f) f.value = location.origin + location.pathname + location.search;
}

function followPair(root) {
  root.addEventListener("live:query", () => {
    const q = location.search || "?";
    for (const a of root.querySelectorAll("a[data-cmd]")) {
      a.href = `${root.dataset.base}${q}&do=${encodeURIComponent(a.dataset.cmd).replace(/%20/g, "+")}`;
    }
  });
}

document.addEventListener("live:query", keepShare);
keepShare();
// ---- end of What if? ----

// ---- Class mode (issue 27) ----
// The class bar and the instructor's dashboard follow their class: after
// each change the server sends the part again, rendered. A lab page's bar
// comes over the lab's websocket (a "class" message); any other page's,
// and a lab page's while its socket is closed, over a stream of
// server-sent events. Without script both are plain pages and forms.

// replaceFrom swaps el for the element the HTML holds. The class's bar is
// the same for each of its students: what is this student's own stays
// from the old one (a choice picked but not sent yet, the words that say
// a vote was kept, the key, where a vote returns), and an open <details>
// stays open.
function replaceFrom(el, html) {
  const t = document.createElement("template");
  t.innerHTML = html;
  const next = t.content.firstElementChild;
  if (!next) return;
  const form = el.querySelector("form.cb-vote");
  const nf = next.querySelector("form.cb-vote");
  if (form && nf && nf.dataset.round === form.dataset.round) {
    for (const name of ["choice", "sure"]) {
      const picked = form.querySelector(`input[name=${name}]:checked`);
      const i = picked && nf.querySelector(`input[name=${name}][value="${CSS.escape(picked.value)}"]`);
      if (i) i.checked = true;
    }
    const why = form.querySelector("input[name=why]"), nwhy = nf.querySelector("input[name=why]");
    if (why && nwhy) nwhy.value = why.value;
    const said = form.querySelector(".cb-said"), nsaid = nf.querySelector(".cb-said");
    if (said && nsaid && !nsaid.textContent.trim()) nsaid.textContent = said.textContent;
  }
  const back = el.querySelector("input[name=back]");
  if (back) next.querySelectorAll("input[name=back]").forEach((b) => { if (!b.value) b.value = back.value; });
  const more = el.querySelector(".cb-more");
  if (more && !next.querySelector(".cb-more")) next.append(more);
  // The confirmation of joining is the student's own too (issue 43).
  const joined = el.querySelector(".cb-joined"), head = next.querySelector(".cb-head");
  if (joined && head && !next.querySelector(".cb-joined")) head.after(joined);
  if (el.dataset.events) next.dataset.events = el.dataset.events;
  const open = [...el.querySelectorAll("details")].map((d) => d.open);
  next.querySelectorAll("details").forEach((d, i) => { if (open[i]) d.open = true; });
  el.replaceWith(next);
  return next;
}

// barStream follows the class bar over server-sent events while on is
// true: on a page without a live socket, and on a lab page while its
// socket is closed.
let barEvents = null;
function barStream(on) {
  const bar = document.getElementById("classbar");
  if (!on || !bar || !bar.dataset.events || !window.EventSource) {
    if (barEvents) barEvents.close();
    barEvents = null;
    return;
  }
  if (barEvents) return;
  barEvents = new EventSource(bar.dataset.events);
  barEvents.addEventListener("update", (e) => {
    const cur = document.getElementById("classbar");
    if (cur) replaceFrom(cur, e.data);
  });
}

// labVote sends a class vote over the lab's socket; it returns false
// when there is none (a page without a live world, a socket closed).
let labVote = () => false;

// saidVote shows what the answer to a vote says: kept, or why not. The
// class's bar may have come meanwhile, in place of the form sent.
function saidVote(round, text) {
  const said = document.querySelector(`#classbar form.cb-vote[data-round="${CSS.escape(String(round))}"] .cb-said`);
  if (said) said.textContent = text;
}

// fromHTML is the text that markup shows.
function fromHTML(html) {
  const t = document.createElement("template");
  t.innerHTML = html || "";
  return t.content.textContent;
}

function followClass() {
  if (!document.getElementById("lab") && !document.getElementById("pair")) barStream(true);
  const teach = document.getElementById("teach");
  if (teach && teach.dataset.events) {
    const es = new EventSource(teach.dataset.events);
    es.addEventListener("update", (e) => {
      const cur = document.getElementById("teach-live");
      if (cur) fitAll(replaceFrom(cur, e.data) || document);
    });
  }
  // The projector view follows its class the same way (issue 43).
  const hall = document.getElementById("hall");
  if (hall && hall.dataset.events) {
    const es = new EventSource(hall.dataset.events);
    es.addEventListener("update", (e) => {
      const cur = document.getElementById("hall-live");
      if (!cur) return;
      fitAll(replaceFrom(cur, e.data) || document);
      hall.classList.toggle("revealed", !!document.getElementById("reveal"));
    });
  }
  // A vote is sent without leaving the page; the answer says it was
  // kept, or why not.
  document.addEventListener("submit", async (e) => {
    const f = e.target.closest("form.cb-vote");
    if (!f) return;
    e.preventDefault();
    const body = new URLSearchParams(new FormData(f));
    // On a lab page the vote goes over its socket, already open; one
    // with a "why?" is sent as the form.
    if (body.get("choice") && !(body.get("why") || "").trim() && labVote(body.get("round"), body.get("choice"), body.get("sure"))) return;
    body.set("bar", "1");
    try {
      const r = await fetch(f.action, { method: "POST", body, headers: { Accept: "application/json" } });
      const j = await r.json().catch(() => ({}));
      saidVote(f.dataset.round, (r.ok ? j.said : j.error) || r.statusText);
    } catch {
      f.submit();
    }
  });
}
followClass();

// A timed vote counts down (issue 44): .timer has when it closes and the
// server's time when it was drawn, on the server's clock; the first one
// seen says how far this device's clock is from the server's. The vote
// closes on the server, which sends the page again.
let timerSkew = null;
function tickTimers() {
  for (const el of document.querySelectorAll(".timer[data-closes]")) {
    if (timerSkew === null) timerSkew = Number(el.dataset.now) - Date.now();
    const left = Math.max(0, Math.ceil((Number(el.dataset.closes) - (Date.now() + timerSkew)) / 1000));
    const out = el.querySelector(".timer-left");
    if (out) out.textContent = `${Math.floor(left / 60)}:${String(left % 60).padStart(2, "0")}`;
  }
}
setInterval(tickTimers, 1000);
// ---- end of class mode ----

// A written worker's editor: an event the program caused (li[data-line],
// and the verdict's line) highlights its line in the editor while it is
// pointed at or focused. The editor is a plain textarea, so a bar is laid
// over the line rather than the line styled.
function followProgramLines() {
  const text = document.getElementById("program-text");
  if (!text) return;
  const editor = text.parentElement;
  const bar = document.createElement("div");
  bar.className = "line-hl";
  bar.hidden = true;
  editor.appendChild(bar);
  const show = (el) => {
    const n = parseInt(el.dataset.line, 10);
    if (!(n > 0)) return;
    const cs = getComputedStyle(text);
    const h = parseFloat(cs.lineHeight) || 19;
    const top = text.offsetTop + parseFloat(cs.paddingTop) + (n - 1) * h;
    bar.style.top = top + "px";
    bar.style.height = h + "px";
    bar.dataset.line = n;
    bar.hidden = false;
    if (top < editor.scrollTop || top + h > editor.scrollTop + editor.clientHeight) {
      editor.scrollTop = Math.max(0, top - editor.clientHeight / 2);
    }
  };
  const hide = () => { bar.hidden = true; delete bar.dataset.line; };
  const target = (e) => e.target.closest && e.target.closest("[data-line]:not(.line-hl)");
  for (const [on, off] of [["mouseover", "mouseout"], ["focusin", "focusout"]]) {
    document.addEventListener(on, (e) => { const el = target(e); if (el) show(el); });
    document.addEventListener(off, (e) => { if (target(e)) hide(); });
  }
}
followProgramLines();

showProgress();
const pair = document.getElementById("pair");
if (pair) followPair(pair);
const lab = document.getElementById("lab") || pair;
if (lab) startLab(lab);
else {
  // Pages without a live world (a permalink, a what-if pair) still open
  // their diagrams on the present, lane names kept in view.
  fitAll(document);
  addEventListener("resize", () => { measures++; fitAll(document); });
}

// leaselab's page script. Pages work without it: every control is a form
// that reloads the page with the command in its address. With it, a lab
// keeps one websocket open and the server sends rendered fragments
// (see docs/protocol.md). Progress lives in this browser's storage.
// This file starts what a page has; classbar.js and editor.js come only
// to pages that have a class or a program editor.

import { newLab, connect, send, setConn } from "./socket.js";
import { followRows, rows } from "./ops.js";
import { fitAll, remeasure, syncNow, liveBox, halt, receive, followPlay } from "./play.js";
import { settle, followAddress, followControls, followKeys, keepShare, followPair } from "./controls.js";

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

// restoreVerdicts asks the engine again for every answer this browser
// gave before (a reload, another visit, the other language), so its
// verdict shows with this page's words.
function restoreVerdicts(lab) {
  const kept = loadProgress()[lab.labID] || {};
  for (const f of document.querySelectorAll("form.answer")) {
    const q = f.dataset.question, choice = kept["a:" + q];
    const box = document.getElementById("verdict-" + q);
    if (!choice || !box || box.querySelector(".verdict")) continue;
    const input = f.querySelector(`input[name=choice][value="${CSS.escape(choice)}"]`);
    if (!input) continue;
    input.checked = true;
    send(lab, { type: "answer", question: q, choice });
  }
}

// followAnswers sends answers, goals and challenges over the socket.
function followAnswers(lab) {
  for (const f of document.querySelectorAll("form.answer")) {
    f.addEventListener("submit", (e) => {
      const c = f.querySelector("input[name=choice]:checked");
      if (c) labProgress(lab.labID, (p) => { p["a:" + f.dataset.question] = c.value; });
      if (c && send(lab, { type: "answer", question: f.dataset.question, choice: c.value })) e.preventDefault();
    });
  }
  for (const f of document.querySelectorAll("form.goalcheck")) {
    f.addEventListener("submit", (e) => {
      // A try: the engine's own shortest schedule may now be asked for.
      for (const s of f.querySelectorAll(".after-try")) s.hidden = false;
      if (send(lab, { type: "goal", goal: f.dataset.goal })) e.preventDefault();
    });
  }
  for (const f of document.querySelectorAll("form.challengeform")) {
    f.addEventListener("submit", (e) => {
      const values = {};
      for (const i of f.querySelectorAll("[data-param]")) values[i.dataset.param] = i.value;
      if (send(lab, { type: "challenge", values })) e.preventDefault();
    });
  }
}

// The page's live lab: a class vote goes over its socket while it is
// open, and its answer comes back with the vote's id.
let live = null;
const labVote = (round, choice, sure) => !!live && send(live, { type: "vote", round: Number(round), choice, sure: sure || undefined });

// classBar loads classbar.js once a page shows a class: the bar, the
// dashboard, the projector view, or a bar the lab's socket brings.
let classMod = null;
function classBar() {
  return classMod ||= import("./classbar.js").then((m) => { m.followClass(labVote); return m; });
}
const barStream = (on) => classMod?.then((m) => m.barStream(on));

function startLab(root) {
  const lab = live = newLab(root);
  lab.onVerdict = (el) => saveVerdicts(lab.labID, el);
  lab.onClass = (html) => classBar().then((m) => { const cur = document.getElementById("classbar"); if (cur) m.replaceFrom(cur, html); });
  lab.onVoted = (round, m) => classBar().then((c) => c.voted(round, m));
  // The socket first: it opens while the rest lays the page out.
  setConn(lab, "off");
  goLive(lab);
  saveVerdicts(lab.labID, document);
  fitAll(document);
  syncNow(liveBox());
  followPlay(lab);
  keepHints(lab.labID);
  keepAnswers(lab.labID);
  followRows(lab);
  followAddress(lab);
  followControls(lab);
  followAnswers(lab);
  followKeys(lab);
}

// goLive opens the lab's socket, and says what its opening and closing
// do besides.
function goLive(lab) {
  connect(lab, {
    open(resumePlay) {
      barStream(false); // the class bar comes over the socket now
      for (const id of [...lab.pressed.keys()]) settle(lab, id);
      if (resumePlay) send(lab, { type: "play", speed: Number(lab.speed.value), every: lab.asked, rows: rows(lab) });
      restoreVerdicts(lab);
    },
    close() {
      halt(lab, true);
      lab.pausing = 0; // its ack will not come; the replay's first frame says where play is
      barStream(true); // until the socket is back
    },
    message: (m) => receive(lab, m),
  });
}

document.addEventListener("live:query", keepShare);
keepShare();
if (document.querySelector("#classbar[data-events], #teach, #hall, .timer[data-closes]")) classBar();
if (document.getElementById("program-text")) {
  import("./editor.js").then((m) => {
    m.followProgramLines();
    m.followQueue((box) => { if (live) saveVerdicts(live.labID, box); fitAll(box); });
  });
}
showProgress();
const pair = document.getElementById("pair");
if (pair) followPair(pair);
const root = document.getElementById("lab") || pair;
if (root) startLab(root);
else {
  // Pages without a live world (a permalink, a what-if pair) still open
  // their diagrams on the present, lane names kept in view.
  fitAll(document);
  addEventListener("resize", () => { remeasure(); fitAll(document); });
}

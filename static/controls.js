// What the student sends a live world (its controls, the time links, the
// keyboard shortcuts), how the server's answers show, and the page's
// address kept to the session.

import { send, resend, hold, release, takeBack } from "./socket.js";
import { rows } from "./ops.js";

export function doCmd(lab, cmd) { return send(lab, { type: "do", cmd }); }

// A control shows at once that it was pressed; the answer, or a new
// connection, takes the mark away.
function press(lab, b, ok, id = lab.nextID - 1) {
  if (!ok || !b) return;
  b.classList.add("sent");
  lab.pressed.set(id, b);
}

export function settle(lab, id) {
  const b = lab.pressed.get(id);
  if (!b) return;
  lab.pressed.delete(id);
  if (![...lab.pressed.values()].includes(b)) b.classList.remove("sent");
}

// withFor adds the duration chosen in the worker's own list to a freeze.
function withFor(cmd) {
  const w = cmd.startsWith("freeze ") && !cmd.includes("for=") ? cmd.slice(7).trim().split(" ")[0] : "";
  const sel = w && document.querySelector(`select.freeze-for[data-worker="${CSS.escape(w)}"]`);
  return sel && sel.value ? cmd + " for=" + sel.value : cmd;
}

// setPlaying shows whether the world plays, writing the button only
// when that changed (else a slow phone pays a style and layout pass).
function setPlaying(lab, on) {
  const play = lab.play;
  lab.playing = !!on;
  const pressed = String(lab.playing), words = lab.playing ? "⏸ " + play.dataset.pause : "▶ " + play.dataset.play;
  if (play.getAttribute("aria-pressed") !== pressed) play.setAttribute("aria-pressed", pressed);
  if (play.textContent !== words) play.textContent = words;
}

// ownAck says whether m answers a play without a speed: the page's own
// (its pace, the event list's rows), not the student's.
export function ownAck(lab, m) {
  const q = m.id && lab.sent.get(m.id)?.msg;
  return m.type === "ack" && q?.type === "play" && q.speed === undefined;
}

// answered shows what a message answers and says of the session: an
// error, a vote's answer, the control it answers no longer pressed, the
// session's query, whether the world plays.
export function answered(lab, m) {
  const vote = m.id && lab.sent.get(m.id)?.msg;
  const own = ownAck(lab, m); // (vote is whatever message m answers)
  if (vote?.type === "vote" && !(m.type === "error" && m.retry > 0)) {
    lab.sent.delete(m.id);
    return lab.onVoted(vote.round, m);
  }
  if (m.type === "error" && m.retry > 0 && resend(lab, m)) {
    // Over the work budget: the server says when to ask again.
  } else if (m.type === "error") lab.errBox.textContent = m.error;
  else if (m.type === "ack") lab.errBox.textContent = "";
  if (m.id) {
    lab.sent.delete(m.id);
    settle(lab, m.id);
    if (m.id === lab.pausing) lab.pausing = 0;
  }
  if (m.query !== undefined && m.query !== lab.query) {
    lab.query = m.query;
    // The address follows play frames and the page's own acks every
    // 5 s (a change costs a slow phone tens of ms), an answer to the
    // student as it is shown.
    if ((m.type === "frame" || own) && !lab.queryTimer) lab.queryTimer = setTimeout(() => flushQuery(lab), 5000);
  }
  // An answer flushes even when its query is the last play frame's (a
  // pause's ack), and so does a pause, after the answer is painted.
  if ((m.type !== "frame" && !own) || (!m.playing && lab.queryTimer)) {
    clearTimeout(lab.queryTimer);
    lab.queryTimer = setTimeout(() => flushQuery(lab), 0);
  }
  setPlaying(lab, m.playing);
}

// flushQuery puts the session's query into the address and the links
// that carry it.
export function flushQuery(lab) {
  clearTimeout(lab.queryTimer);
  lab.queryTimer = 0;
  const query = lab.query;
  if (query === lab.shown) return;
  lab.shown = query;
  const url = `${location.pathname}${query ? "?" + query : ""}${location.hash}`;
  history.replaceState(null, "", url);
  const sw = document.getElementById("lang-switch");
  if (sw) sw.href = sw.pathname + (query ? "?" + query : "") + location.hash;
  for (const a of document.querySelectorAll("a[data-base]")) a.href = a.dataset.base + (query ? "?" + query : "");
  lab.root.dispatchEvent(new CustomEvent("live:query", { bubbles: true }));
}

// followAddress: before a link is followed or copied, or the page is
// left or hidden, the address is the session's.
export function followAddress(lab) {
  addEventListener("pointerdown", (e) => { if (e.target.closest?.("a[href], [data-share]")) flushQuery(lab); }, true);
  addEventListener("keydown", () => flushQuery(lab), true);
  addEventListener("pagehide", () => flushQuery(lab));
  document.addEventListener("visibilitychange", () => { if (document.hidden) flushQuery(lab); });
}

// keepShare puts the page's own address in the share field.
export function keepShare() {
  const f = document.getElementById("share-here");
  if (f) f.value = location.origin + location.pathname + location.search;
}

// followPair: on the what-if pair page (#pair), which plays live over
// its own socket, the time links point at the pair as the address
// follows it (they still work if the socket drops).
export function followPair(root) {
  root.addEventListener("live:query", () => {
    const q = location.search || "?";
    for (const a of root.querySelectorAll("a[data-cmd]")) {
      a.href = `${root.dataset.base}${q}&do=${encodeURIComponent(a.dataset.cmd).replace(/%20/g, "+")}`;
    }
  });
}

// followControls sends the controls', the time links' and play's
// commands over the socket; without one, a form submits the plain way.
export function followControls(lab) {
  const form = document.getElementById("controls");
  form?.addEventListener("pointerdown", (e) => {
    lab.lifted = null;
    touchSends(lab, e);
  });
  form?.addEventListener("pointerup", (e) => liftSends(lab, e));
  form?.addEventListener("pointercancel", () => takeBack(lab)); // a scroll, not a tap
  // The finger's touch ends after its lift sent: no click is made of it
  // (its mouse events, focus and click cost a slowed phone 20-30 ms
  // before the answer can be drawn).
  form?.addEventListener("touchend", (e) => {
    if (lab.lifted && e.cancelable) {
      e.preventDefault();
      lab.lifted = null;
    }
  });
  form?.addEventListener("submit", (e) => {
    const b = e.submitter, lifted = lab.lifted;
    lab.lifted = null;
    if (!b) return;
    if (lifted === b) { e.preventDefault(); return; } // the lift's click: sent as it lifted
    let ok;
    if (b.name === "replay") ok = send(lab, { type: "replay" });
    else ok = doCmd(lab, withFor(b.value));
    press(lab, b, ok);
    if (ok) e.preventDefault();
  });
  // A link that carries a time command (the what-if pair's) sends it
  // instead of loading the page.
  lab.root.addEventListener("click", (e) => {
    const a = e.target.closest("a[data-cmd]");
    if (a && !e.ctrlKey && !e.metaKey && !e.shiftKey && doCmd(lab, a.dataset.cmd)) e.preventDefault();
  });
  // pausing is the id of a pause not yet answered: until its ack, frames
  // sent before it still say "playing", and a change of pace or speed
  // (a play message) would start the world again after the pause.
  lab.play.addEventListener("click", () => {
    const pause = lab.playing && !lab.pausing;
    const ok = send(lab, pause ? { type: "pause" } : { type: "play", speed: Number(lab.speed.value), every: lab.asked, rows: rows(lab) });
    lab.pausing = pause && ok ? lab.nextID - 1 : 0;
    press(lab, lab.play, ok);
  });
}

// touchSends sends the command of the control a finger touches, on a
// world that does not play, held (socket.js hold): the answer comes while
// the finger is down and is drawn as it lifts. Not on the what-if pair
// (#pair), whose runs are forked, nor in a class, whose teacher has heard
// the command by then: there the command goes as the finger lifts.
function touchSends(lab, e) {
  const b = e.pointerType === "touch" && e.isPrimary !== false && e.target.closest?.("button[name=do]");
  if (!b || b.disabled || lab.holding || lab.playing || lab.pausing || lab.root.id !== "lab" || document.querySelector(".classbar")) return;
  hold(lab, { type: "do", cmd: withFor(b.value) }, b);
}

// liftSends lets the command its touch sent stand as the finger lifts off
// its button (drawing the answer if it came), or sends it now; the touch
// that ends then makes no click (touchend), or, where it cannot be
// stopped, a click that sends nothing; a touch taken for a scroll ends in
// pointercancel, which takes a held command back.
function liftSends(lab, e) {
  const b = e.pointerType === "touch" && e.target.closest?.("button[name=do]");
  if (!b || b.disabled) return;
  if (lab.holding?.button === b && !lab.holding.undo) {
    const h = release(lab);
    if (!h.m) press(lab, b, true, h.id);
    lab.lifted = b;
    return;
  }
  const ok = doCmd(lab, withFor(b.value));
  press(lab, b, ok);
  lab.lifted = ok ? b : null;
}

// followKeys: shortcuts never act while a form field has the keys, and
// the arrows scroll a focused diagram.
export function followKeys(lab) {
  document.addEventListener("keydown", (e) => {
    if (e.ctrlKey || e.metaKey || e.altKey) return;
    if (e.target.closest("input, select, textarea, [contenteditable]")) return;
    if (e.key.startsWith("Arrow") && e.target.closest(".diagram-box, .events")) return;
    const workers = [...document.querySelectorAll("#status [data-worker]")];
    let handled = true;
    if (e.key === " ") { if (e.target.closest("button, a, summary")) return; lab.play.click(); }
    else if (e.key === ".") doCmd(lab, "step");
    else if (e.key === "ArrowRight") doCmd(lab, e.shiftKey ? "advance 5s" : "advance 1s");
    else if (e.key === "f" || e.key === "F") {
      const on = (document.getElementById("storage-mode")?.dataset.mode || "") === "fencing";
      doCmd(lab, on ? "fencing off" : "fencing on");
    } else if (e.key === "r" || e.key === "R") doCmd(lab, "reset");
    else if (/^[1-9]$/.test(e.key) && workers[Number(e.key) - 1]) {
      const w = workers[Number(e.key) - 1];
      doCmd(lab, withFor((w.dataset.frozen === "true" ? "thaw " : "freeze ") + w.dataset.worker));
    } else handled = false;
    if (handled) e.preventDefault();
  });
}

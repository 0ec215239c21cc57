// Class mode (issue 27). The class bar and the instructor's dashboard
// follow their class: after each change the server sends the part again,
// rendered. A lab page's bar comes over the lab's websocket (a "class"
// message); any other page's, and a lab page's while its socket is
// closed, over a stream of server-sent events. Without script both are plain pages and forms.
// app.js loads this file on a page that shows something of a class.

import { fitAll } from "./play.js";

// replaceFrom swaps el for the element the HTML holds. The class's bar is
// the same for each of its students: what is this student's own stays
// from the old one (a choice picked but not sent yet, the words that say
// a vote was kept, the key, where a vote returns), and an open <details>
// stays open.
export function replaceFrom(el, html) {
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
export function barStream(on) {
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

// voted shows the answer m to the vote of round sent over the lab's
// socket.
export function voted(round, m) {
  saidVote(round, m.type === "voted" ? fromHTML(m.html) : m.error);
}

// followClass follows the class on this page. labVote sends a class
// vote over the lab's socket; it returns false when there is none (a
// page without a live world, a socket closed).
export function followClass(labVote) {
  if (!document.getElementById("lab") && !document.getElementById("pair")) barStream(true);
  const teach = document.getElementById("teach");
  if (teach && teach.dataset.events) {
    const es = new EventSource(teach.dataset.events);
    es.addEventListener("update", (e) => {
      const cur = document.getElementById("teach-live");
      if (cur) fitAll(replaceFrom(cur, e.data) || document);
    });
    // The vote's buttons and timer, beside it, once they changed (a
    // timer closed the vote).
    es.addEventListener("round", (e) => {
      const cur = document.getElementById("teach-round");
      if (cur) replaceFrom(cur, e.data);
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
  setInterval(tickTimers, 1000);
}

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

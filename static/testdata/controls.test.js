// How the server's answers show (static/controls.js): an answer to the
// page's own play message is held (the address waits for the play
// frames' timer; on a slow page it waits with the second), one to the
// student's command is not; and the address kept to the session.

import { test, mock, beforeEach, afterEach } from "node:test";
import assert from "node:assert/strict";
import { page, controlsHTML, liveLab } from "./dom.js";
import { answered, ownAck, flushQuery, followAddress, followPair, keepShare, followControls } from "../controls.js";
import { send, kept } from "../socket.js";
import { receive } from "../play.js";

const html = `<a id="lang-switch" href="/id/labs/w1-w2?seed=1">ID</a>
<div id="lab" data-lab="w1-w2" data-query="seed=1" data-ws="/ws">${controlsHTML}
<span id="now">0s</span><b id="holder">W1</b>
<a id="permalink" data-base="/en/labs/w1-w2/at" href="/en/labs/w1-w2/at?seed=1">link</a>
<input id="share-here" value="">
<form id="controls"><button name="do" value="advance 5s" id="plus5">+5 s</button></form></div>`;

let p, lab;

beforeEach(async () => {
  mock.timers.enable({ apis: ["setTimeout"] });
  p = page(html);
  lab = await liveLab(p);
});

afterEach(() => mock.timers.reset());

// asked sends msg as the page would and is the id it went with.
function asked(msg) {
  assert.ok(send(lab, msg));
  return lab.nextID - 1;
}

test("an ack of the page's own play (no speed) is its own; the student's play or command is not", () => {
  const pace = asked({ type: "play", every: 0.4 });
  const rows = asked({ type: "play", rows: true });
  const play = asked({ type: "play", speed: 1, every: 0.2, rows: true });
  const cmd = asked({ type: "do", cmd: "advance 5s" });
  assert.ok(ownAck(lab, { type: "ack", id: pace }));
  assert.ok(ownAck(lab, { type: "ack", id: rows }));
  assert.ok(!ownAck(lab, { type: "ack", id: play }));
  assert.ok(!ownAck(lab, { type: "ack", id: cmd }));
  assert.ok(!ownAck(lab, { type: "error", id: pace, error: "no" }));
  assert.ok(!ownAck(lab, { type: "frame", playing: true }));
});

test("the student's command's answer puts the session in the address at once (in the task after it is painted); the page's own waits for the play frames' timer", () => {
  const cmd = asked({ type: "do", cmd: "advance 5s" });
  answered(lab, { type: "ack", id: cmd, playing: true, query: "seed=1&do=advance+5s" });
  assert.equal(p.replaced.length, 0, "not in the animation frame that shows the answer");
  mock.timers.tick(0);
  assert.deepEqual(p.replaced, ["/en/labs/w1-w2?seed=1&do=advance+5s"]);
  const pace = asked({ type: "play", every: 0.4 });
  answered(lab, { type: "ack", id: pace, playing: true, query: "seed=1&do=advance+5s&do=until+7s" });
  assert.equal(p.replaced.length, 1, "the page's own ack leaves the address to the timer");
  mock.timers.tick(5000);
  assert.deepEqual(p.replaced.at(-1), "/en/labs/w1-w2?seed=1&do=advance+5s&do=until+7s");
  answered(lab, { type: "frame", playing: true, query: "seed=1&do=advance+5s&do=until+8s" });
  assert.equal(p.replaced.length, 2);
  mock.timers.tick(4999);
  assert.equal(p.replaced.length, 2);
  mock.timers.tick(1);
  assert.deepEqual(p.replaced.at(-1), "/en/labs/w1-w2?seed=1&do=advance+5s&do=until+8s");
});

test("a pause puts the session in the address at once", () => {
  answered(lab, { type: "frame", playing: true, query: "seed=1&do=until+3s" });
  assert.equal(p.replaced.length, 0);
  answered(lab, { type: "frame", playing: false, query: "seed=1&do=until+3s" });
  mock.timers.tick(0);
  assert.deepEqual(p.replaced, ["/en/labs/w1-w2?seed=1&do=until+3s"]);
  assert.equal(lab.play.textContent, "▶ Play");
  assert.equal(lab.play.getAttribute("aria-pressed"), "false");
});

test("an error shows until an ack; one over the work budget is sent again instead, a few times", () => {
  const cmd = asked({ type: "do", cmd: "freeze W9" });
  answered(lab, { type: "error", id: cmd, error: "no worker W9" });
  assert.equal(lab.errBox.textContent, "no worker W9");
  const again = asked({ type: "do", cmd: "advance 1s" });
  answered(lab, { type: "error", id: again, error: "busy", retry: 1.5 });
  assert.equal(lab.errBox.textContent, "no worker W9", "a busy refusal is not shown");
  mock.timers.tick(1500);
  assert.deepEqual(lab.ws.sent.at(-1), { type: "do", cmd: "advance 1s", id: again + 1 });
  answered(lab, { type: "ack", id: again + 1 });
  assert.equal(lab.errBox.textContent, "");
});

test("a control shows it was pressed until its answer; a pause's ack ends the pausing", () => {
  followControls(lab);
  const b = document.getElementById("plus5");
  Object.assign(b, { name: "do", value: "advance 5s" }); // (linkedom's button has neither)
  const e = new p.window.Event("submit", { cancelable: true });
  e.submitter = b;
  document.getElementById("controls").dispatchEvent(e);
  assert.ok(e.defaultPrevented, "sent over the socket, not as a form");
  assert.deepEqual(lab.ws.sent.at(-1), { type: "do", cmd: "advance 5s", id: 1 });
  assert.ok(b.classList.contains("sent"));
  answered(lab, { type: "ack", id: 1, playing: false });
  assert.ok(!b.classList.contains("sent"));
  lab.playing = true;
  lab.play.dispatchEvent(new p.window.Event("click"));
  assert.deepEqual(lab.ws.sent.at(-1), { type: "pause", id: 2 });
  assert.equal(lab.pausing, 2);
  answered(lab, { type: "ack", id: 2, playing: false });
  assert.equal(lab.pausing, 0);
});

test("a finger's tap sends its command as it lifts, and the click after it sends nothing more; a mouse's click sends at the click", () => {
  followControls(lab);
  const b = document.getElementById("plus5");
  Object.assign(b, { name: "do", value: "advance 5s" }); // (linkedom's button has neither)
  const lift = (type) => { const e = new p.window.Event("pointerup", { bubbles: true }); e.pointerType = type; b.dispatchEvent(e); };
  const submit = () => {
    const e = new p.window.Event("submit", { cancelable: true });
    e.submitter = b;
    document.getElementById("controls").dispatchEvent(e);
    return e;
  };
  const touchEnd = () => {
    const e = new p.window.Event("touchend", { bubbles: true, cancelable: true });
    b.dispatchEvent(e);
    return e;
  };
  lift("touch");
  assert.deepEqual(lab.ws.sent, [{ type: "do", cmd: "advance 5s", id: 1 }]);
  assert.ok(b.classList.contains("sent"));
  assert.ok(submit().defaultPrevented, "the tap's click: not a form's submit");
  assert.equal(lab.ws.sent.length, 1, "not sent twice");
  // Where the touch's end can be stopped, no click comes of the tap, and
  // a later click (a key on the focused button) sends as usual.
  lift("touch");
  assert.equal(lab.ws.sent.length, 2);
  assert.ok(touchEnd().defaultPrevented, "the lift sent: no click made of it");
  assert.ok(!touchEnd().defaultPrevented, "a touch that sent nothing makes its click");
  assert.ok(submit().defaultPrevented);
  assert.equal(lab.ws.sent.length, 3, "a key's click after the tap sends");
  lift("mouse");
  assert.equal(lab.ws.sent.length, 3, "a mouse sends at its click");
  assert.ok(submit().defaultPrevented);
  assert.deepEqual(lab.ws.sent.at(-1), { type: "do", cmd: "advance 5s", id: 4 });
});

// touchPage is the lab page with its controls followed, a button whose
// pointer events the test sends, and what the socket delivered.
function touchPage() {
  followControls(lab);
  const b = document.getElementById("plus5");
  Object.assign(b, { name: "do", value: "advance 5s" }); // (linkedom's button has neither)
  const delivered = [];
  lab.deliver = (m) => delivered.push(m);
  const pointer = (type, pointerType = "touch") => {
    const e = new p.window.Event(type, { bubbles: true, cancelable: true });
    e.pointerType = pointerType;
    b.dispatchEvent(e);
    return e;
  };
  const touchEnd = () => {
    const e = new p.window.Event("touchend", { bubbles: true, cancelable: true });
    b.dispatchEvent(e);
    return e;
  };
  return { b, delivered, pointer, touchEnd };
}

test("a finger's touch on a paused world sends its command held; its answer waits for the lift and is taken on then, with no click", () => {
  const { b, delivered, pointer, touchEnd } = touchPage();
  pointer("pointerdown");
  assert.deepEqual(lab.ws.sent, [{ type: "do", cmd: "advance 5s", hold: true, id: 1 }]);
  const ack = { type: "ack", id: 1, playing: false, query: "seed=1&do=advance+5s" };
  assert.ok(kept(lab, ack), "the answer waits while the finger is down");
  assert.deepEqual(delivered, []);
  pointer("pointerup");
  assert.deepEqual(delivered, [ack], "taken on as the finger lifts");
  assert.ok(!b.classList.contains("sent"), "answered already: not marked as waiting");
  assert.ok(touchEnd().defaultPrevented, "no click made of the tap");
  assert.equal(lab.ws.sent.length, 1, "sent once");
  assert.equal(lab.holding, null);
});

test("a finger that lifts before the answer leaves its control marked; the answer is taken on as it comes", () => {
  const { b, delivered, pointer } = touchPage();
  pointer("pointerdown");
  pointer("pointerup");
  assert.ok(b.classList.contains("sent"));
  assert.ok(!kept(lab, { type: "ack", id: 1, playing: false }), "no longer held");
  assert.deepEqual(delivered, []);
  answered(lab, { type: "ack", id: 1, playing: false });
  assert.ok(!b.classList.contains("sent"));
});

test("a touch that turns into a scroll takes its command back: the page shows what it showed", () => {
  const { delivered, pointer, touchEnd } = touchPage();
  pointer("pointerdown");
  assert.ok(kept(lab, { type: "ack", id: 1, playing: false, ops: [["text", "now", "5s"]] }));
  pointer("pointercancel");
  assert.deepEqual(lab.ws.sent.at(-1), { type: "undo", of: 1, id: 2 });
  assert.ok(kept(lab, { type: "ack", id: 2, playing: false }));
  assert.deepEqual(delivered, [], "neither the command's answer nor the undo's is drawn");
  assert.equal(lab.holding, null);
  assert.equal(lab.sent.size, 0, "both answered");
  assert.ok(!touchEnd().defaultPrevented, "nothing was sent as it lifted");
});

test("an undo the server refuses lets the command stand: its answer is taken on; a refused command's error is not shown", () => {
  let { delivered, pointer } = touchPage();
  pointer("pointerdown");
  const ack = { type: "ack", id: 1, playing: false };
  kept(lab, ack);
  pointer("pointercancel");
  assert.ok(kept(lab, { type: "error", id: 2, error: "no" }));
  assert.deepEqual(delivered, [ack]);
  pointer("pointerdown");
  kept(lab, { type: "error", id: 3, error: "refused" });
  pointer("pointercancel");
  assert.ok(kept(lab, { type: "error", id: 4, error: "no" }));
  assert.deepEqual(delivered, [ack], "the error of a command taken back by the finger is not shown");
});

test("any other message sent while a command is held lets it stand", () => {
  const { delivered, pointer } = touchPage();
  pointer("pointerdown");
  const ack = { type: "ack", id: 1, playing: false };
  kept(lab, ack);
  lab.play.dispatchEvent(new p.window.Event("click"));
  assert.deepEqual(delivered, [ack], "taken on before the next message goes");
  assert.equal(lab.ws.sent.at(-1).type, "play");
  pointer("pointercancel");
  assert.equal(lab.ws.sent.at(-1).type, "play", "nothing left to take back");
});

test("a command is not held on a playing world, in a class, or from a mouse: it goes as before", () => {
  const { pointer } = touchPage();
  pointer("pointerdown", "mouse");
  lab.playing = true;
  pointer("pointerdown");
  lab.playing = false;
  document.body.insertAdjacentHTML("afterbegin", `<aside id="cb" class="classbar"></aside>`);
  pointer("pointerdown");
  assert.deepEqual(lab.ws.sent, []);
  pointer("pointerup");
  assert.deepEqual(lab.ws.sent, [{ type: "do", cmd: "advance 5s", id: 1 }], "sent as the finger lifts");
  document.getElementById("cb").remove();
});

test("on a slow page gliding, the page's own ack waits with the second; the student's does not", () => {
  lab.cost = 10;
  lab.shownSecond = 1;
  lab.glide = { layer: null, k: 1, x: 0, got: 0, v: 0, anim: { cancel() {} } };
  const pace = asked({ type: "play", every: 0.4 });
  p.now = 1000;
  receive(lab, { type: "ack", id: pace, playing: true, got: 1000 });
  p.runFrames();
  assert.equal(lab.lateFrames.length, 1, "held for the second");
  const cmd = asked({ type: "do", cmd: "advance 5s" });
  receive(lab, { type: "ack", id: cmd, playing: true, got: 1100, query: "seed=1&do=advance+5s" });
  p.runFrames();
  assert.equal(lab.lateFrames.length, 0, "the student's answer goes in at once, and what waited with it");
  mock.timers.tick(0);
  assert.deepEqual(p.replaced, ["/en/labs/w1-w2?seed=1&do=advance+5s"]);
});

test("the address, the language switch, the links that carry the session and the share field follow it", () => {
  followAddress(lab);
  followPair(lab.root);
  document.getElementById("lang-switch").pathname = "/id/labs/w1-w2"; // (linkedom's links have none)
  document.addEventListener("live:query", keepShare);
  lab.root.dataset.base = "/en/labs/w1-w2/whatif";
  lab.root.insertAdjacentHTML("beforeend", `<a id="t" data-cmd="advance 5s" href="#">+5</a>`);
  lab.query = "seed=1&do=until+9s";
  answered(lab, { type: "frame", playing: true, query: "seed=1&do=until+9s&x=1" });
  assert.equal(p.replaced.length, 0);
  dispatchWindow(new Event("keydown")); // a key: the address is the session's first
  assert.deepEqual(p.replaced, ["/en/labs/w1-w2?seed=1&do=until+9s&x=1"]);
  assert.equal(document.getElementById("lang-switch").getAttribute("href"), "/id/labs/w1-w2?seed=1&do=until+9s&x=1");
  assert.equal(document.getElementById("permalink").getAttribute("href"), "/en/labs/w1-w2/at?seed=1&do=until+9s&x=1");
  assert.equal(document.getElementById("share-here").value, "http://example.test/en/labs/w1-w2?seed=1&do=until+9s&x=1");
  assert.equal(document.getElementById("t").getAttribute("href"), "/en/labs/w1-w2/whatif?seed=1&do=until+9s&x=1&do=advance+5s");
  flushQuery(lab);
  assert.equal(p.replaced.length, 1, "an address already the session's is not written again");
});

// The play pacing that decides when a frame is drawn, and the "now"
// line's glide (static/play.js).

import { test, mock, beforeEach, afterEach } from "node:test";
import assert from "node:assert/strict";
import { page, controlsHTML, liveLab } from "./dom.js";
import { receive, steer, syncNow, liveBox } from "../play.js";
import { send } from "../socket.js";

const html = `<div id="lab" data-lab="w1-w2" data-query="seed=1" data-ws="/ws">${controlsHTML}
<span id="now">0s</span><b id="holder">W1</b>
<div id="diagram"><div id="live-box" class="diagram-box" data-width="100" data-focus="0"><svg class="diagram"><g id="live-nowline" class="nowline" transform="translate(0,0)"><line y1="10" y2="90"></line><text text-anchor="middle"><tspan id="live-nowat">0s</tspan></text></g></svg></div></div></div>`;

let p, lab, anims;

beforeEach(async () => {
  mock.timers.enable({ apis: ["setTimeout"] });
  p = page(html);
  lab = await liveLab(p);
  // The picture: 100 units drawn 200 px wide (k = 2), in a box as wide.
  const box = liveBox(), svg = box.querySelector("svg");
  svg.getBoundingClientRect = () => ({ width: 200 });
  Object.assign(box, { scrollWidth: 200, clientWidth: 200, scrollLeft: 0 });
  syncNow(box);
  anims = [];
  box.querySelector(".nowlayer").animate = (keys, opts) => {
    const a = { keys, opts, cancelled: false, cancel() { a.cancelled = true; }, commitStyles() {} };
    anims.push(a);
    return a;
  };
});

afterEach(() => mock.timers.reset());

const text = (id) => document.getElementById(id).textContent;

// frame is a play frame at now seconds, its line at x, come at got ms.
const frame = (now, x, got, more = {}) => ({ type: "frame", playing: true, now: `${now}s`, at: `${now}s`, x, got, ...more });

// come hands m to the page at its time.
function come(m) {
  p.now = m.got;
  receive(lab, m);
}

// tick moves the clock and the timers on by ms.
function tick(ms) {
  p.now += ms;
  mock.timers.tick(ms);
}

// draw runs the animation frame asked for, the batch costing took ms,
// and the task after its paint.
function draw(took = 1) {
  assert.equal(p.frames.length, 1, "an animation frame asked for");
  p.runFrames();
  p.now += took;
  mock.timers.tick(0);
}

test("an answer is drawn in the next animation frame, a play frame after the page has rested", () => {
  come({ type: "frame", playing: false, now: "1s", at: "1s", got: 1000 });
  draw(30); // the batch cost 30 ms: the page rests 9 × 30 ms after it
  assert.equal(text("now"), "1s");
  come(frame(2, undefined, 1100));
  assert.equal(p.frames.length, 0, "resting: no animation frame yet");
  tick(199);
  assert.equal(p.frames.length, 0);
  tick(1);
  draw(30);
  assert.equal(text("now"), "2s");
  come({ type: "ack", id: 99, got: p.now + 10 });
  assert.equal(p.frames.length, 1, "an answer does not wait for the rest");
});

test("on a world that does not play, the answer to the student's command is drawn as it arrives; another message waits for an animation frame", () => {
  assert.ok(send(lab, { type: "do", cmd: "advance 5s" }));
  come({ type: "ack", id: lab.nextID - 1, playing: false, now: "5s", at: "5s", got: 1000 });
  assert.equal(p.frames.length, 0, "no animation frame waited for");
  assert.equal(text("now"), "5s");
  come({ type: "frame", playing: false, now: "6s", at: "6s", got: 1100 });
  assert.equal(text("now"), "5s", "not the student's answer: drawn in the next frame");
  draw();
  assert.equal(text("now"), "6s");
  assert.ok(send(lab, { type: "play", speed: 1 }));
  come({ type: "ack", id: lab.nextID - 1, playing: true, now: "6s", at: "6s", got: 1200 });
  assert.equal(p.frames.length, 1, "a playing world's answer waits for the frame");
});

test("a play frame within the second shown that only tells the time waits for the next second, unasked for", () => {
  come(frame(1.2, undefined, 1000));
  draw();
  assert.equal(text("now"), "1.2s");
  come(frame(1.4, undefined, 1200));
  come(frame(1.6, undefined, 1400));
  assert.equal(p.frames.length, 0, "no animation frame for a frame within the second");
  assert.equal(text("now"), "1.2s");
  come(frame(1.8, undefined, 1600, { ops: [["text", "holder", "W2"]] }));
  draw();
  assert.equal(text("holder"), "W2", "a frame that changes more is drawn");
  assert.equal(text("now"), "1.2s", "its time still waits for the second");
  come(frame(2, undefined, 1800));
  draw();
  assert.equal(text("now"), "2s");
  assert.equal(text("live-nowat"), "2s");
});

test("a slow page draws a second's play frames together, in order, when the next second comes", () => {
  come(frame(1, undefined, 1000));
  draw(10); // its batches cost 10 ms: a budget phone
  come(frame(1.2, undefined, 1200, { ops: [["text", "holder", "W2"]] }));
  come(frame(1.4, undefined, 1400, { ops: [["text", "holder", "W3"]] }));
  assert.equal(p.frames.length, 0);
  assert.equal(text("holder"), "W1", "the second's frames wait whole");
  come(frame(2, undefined, 2000));
  draw(10);
  assert.equal(text("holder"), "W3");
  assert.equal(text("now"), "2s");
  // At half speed a second lasts two: such a page draws as frames come.
  lab.speed = { value: "0.5" };
  come(frame(2.2, undefined, 2400, { ops: [["text", "holder", "W4"]] }));
  draw(10);
  assert.equal(text("holder"), "W4");
});

test("the page asks for play frames as far apart as what a message costs it", () => {
  lab.playing = true;
  come(frame(1, undefined, 1000));
  draw();
  assert.deepEqual(lab.ws.sent, [], "1 ms a message: a frame every 0.2 s, as asked already");
  // Each message of the second costs the page 50 ms (on its way in).
  for (const n of [1.1, 1.2, 1.3, 1.4, 1.5, 1.6]) {
    p.now = 1000 * n + 50;
    receive(lab, frame(n, undefined, 1000 * n));
  }
  assert.deepEqual(lab.ws.sent.map((m) => m.every), [0.4, 0.6]);
  assert.ok(lab.ws.sent.every((m) => m.type === "play" && m.speed === undefined));
  lab.pausing = lab.nextID; // a pause not answered yet: no play that would start the world again
  lab.asked = 0.2;
  p.now = 1800;
  receive(lab, frame(1.7, undefined, 1700));
  assert.equal(lab.ws.sent.length, 2);
});

// straight are play frames from 0 to 1.2 s, the line moving 10 units a
// second, come 200 ms apart.
const straight = () => [0, 0.2, 0.4, 0.6, 0.8, 1, 1.2].map((n) => frame(n, Math.round(10 * n), 1000 + 1000 * n));

test("once the frames of a second keep to a straight line, the line glides at their pace", () => {
  const got = straight().map((m) => { p.now = m.got; return steer(lab, m); });
  assert.deepEqual(got, [false, false, false, false, false, true, true]);
  assert.equal(anims.length, 1, "one animation, started at the second frame after 1 s and kept");
  // At 2,000 ms the line is at 10 units, 20 px; it moves 0.01 units a ms,
  // 200 units (400 px) in the animation's 20 s.
  assert.deepEqual(anims[0].keys, [{ transform: "translateX(20.0px)" }, { transform: "translateX(420.0px)" }]);
  assert.equal(anims[0].opts.duration, 20000);
  assert.equal(anims[0].opts.easing, "linear");
});

test("the glide keeps its line within 3 units, aims again past them, and stops off the straight line", () => {
  for (const m of straight().slice(0, 6)) { p.now = m.got; steer(lab, m); }
  p.now = 2600;
  assert.ok(steer(lab, frame(1.2, 12, 2500)), "3 units from where the animation has it (15)");
  assert.equal(anims.length, 1);
  p.now = 2800;
  assert.ok(steer(lab, frame(1.4, 14, 2800)), "4 units behind the animation (18): aimed again");
  assert.equal(anims.length, 2);
  assert.ok(anims[0].cancelled);
  assert.equal(steer(lab, frame(1.6, 40, 3000)), false, "off the straight line");
  assert.ok(anims[1].cancelled);
  assert.equal(lab.glide, null);
});

test("the glide's pace is the speed's, and a student who asks for less motion gets none", () => {
  lab.speed = { value: "2" };
  for (const m of straight()) { p.now = m.got; steer(lab, m); }
  assert.deepEqual(anims[0].keys, [{ transform: "translateX(20.0px)" }, { transform: "translateX(820.0px)" }]);
  lab.glide = null;
  lab.track = null;
  lab.still = { matches: true };
  const got = straight().map((m) => { p.now = m.got; return steer(lab, m); });
  assert.ok(got.every((g) => g === false));
  assert.equal(anims.length, 1);
});

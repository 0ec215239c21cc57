// A page for the page script's unit tests: a small DOM (linkedom) with
// the HTML a test gives, and the few browser globals the modules use,
// each a stand-in the test can read or move: the address (location,
// history), animation frames, the clock (performance.now), matchMedia,
// CSS.escape, window-level listeners and a websocket that keeps what it
// is sent. Timers are node:test's mock timers (the test enables them).

import { parseHTML } from "linkedom";

export function page(html, { path = "/en/labs/w1-w2", search = "?seed=1" } = {}) {
  const w = parseHTML(`<!doctype html><html><head></head><body>${html}</body></html>`);
  const win = new EventTarget();
  const p = {
    window: w, document: w.document, frames: [], now: 0, replaced: [],
    // runFrames runs the animation frames asked for so far.
    runFrames() { for (const f of p.frames.splice(0)) f(p.now); },
  };
  const location = { protocol: "http:", host: "example.test", origin: "http://example.test", pathname: path, search, hash: "" };
  Object.assign(globalThis, {
    window: w,
    document: w.document,
    CustomEvent: w.CustomEvent,
    location,
    history: {
      replaceState(state, title, url) {
        p.replaced.push(url);
        const u = new URL(url, location.origin);
        location.pathname = u.pathname;
        location.search = u.search;
      },
    },
    requestAnimationFrame: (f) => p.frames.push(f),
    matchMedia: () => ({ matches: false }),
    CSS: { escape: (s) => String(s).replace(/["\\]/g, "\\$&") },
    addEventListener: win.addEventListener.bind(win),
    removeEventListener: win.removeEventListener.bind(win),
    dispatchWindow: (e) => win.dispatchEvent(e),
    WebSocket: { OPEN: 1 },
  });
  Object.defineProperty(globalThis, "performance", { value: { now: () => p.now }, configurable: true, writable: true });
  return p;
}

// socket is an open websocket that keeps what the page sends, parsed.
export function socket() {
  const sent = [];
  return { readyState: 1, sent, send: (s) => sent.push(JSON.parse(s)), close() { this.readyState = 3; } };
}

// liveLab is newLab's state for a page with the lab's controls, its
// socket open.
export async function liveLab(p) {
  const { newLab } = await import("../socket.js");
  const root = p.document.getElementById("lab");
  const lab = newLab(root);
  lab.ws = socket();
  return lab;
}

// controlsHTML is the part of a lab page the live modules reach for.
export const controlsHTML = `
<span id="conn" data-on="on" data-off="off" data-idle="idle" data-full="full"></span>
<div id="cmd-error"></div>
<button id="play" data-play="Play" data-pause="Pause" aria-pressed="false">▶ Play</button>
<select id="speed"><option value="1" selected>1×</option><option value="2">2×</option></select>`;

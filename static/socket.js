// The live page's state, which the page's modules share (newLab), and its
// socket: one websocket per lab page (docs/protocol.md), opened again by
// itself after a drop.

// newLab is the state of a live page (root: #lab or #pair); each module
// keeps its fields in it.
export function newLab(root) {
  const query = root.dataset.query;
  return {
    root, labID: root.dataset.lab, query,
    conn: document.getElementById("conn"),
    errBox: document.getElementById("cmd-error"),
    play: document.getElementById("play"),
    speed: document.getElementById("speed"),
    eventBox: document.querySelector("details.eventbox"),
    // here (sent: the messages not yet answered)
    ws: null, seq: 0, nextID: 1, retry: 500, fresh: true, sent: new Map(),
    // controls.js
    playing: false, pausing: 0, pressed: new Map(), queryTimer: 0, shown: query, lifted: null,
    // here: a command held while its finger is down (hold); deliver
    // takes a message on as the socket's own would
    holding: null, deliver() {},
    // ops.js
    heldRows: [], lateText: new Map(), lateChart: [],
    // play.js
    inbox: [], lateFrames: [], shownSecond: NaN, queued: false,
    restUntil: 0, restTimer: 0, cost: 0, perMsg: 0, asked: 0.2,
    still: matchMedia("(prefers-reduced-motion: reduce)"),
    track: null, glide: null, steered: null, steeredTo: false,
    // app.js: what a verdict, the class bar and a vote's answer do
    onVerdict() {}, onClass() {}, onVoted() {},
  };
}

// setConn shows the connection's state: on, off, idle or full.
export function setConn(lab, state) {
  lab.conn.textContent = lab.conn.dataset[state];
  lab.conn.classList.toggle("on", state === "on");
}

// connect opens the socket; on says what its opening (with whether the
// world played before), its closing and each message do. A dropped
// connection comes back after a random part of a growing delay, so that
// a classroom does not reconnect all at once; the session is in the
// address (query), so any server rebuilds it.
export function connect(lab, on) {
  const proto = location.protocol === "https:" ? "wss:" : "ws:";
  // The first connection, while the address is the page's, says the
  // page has what it holds (have=1); a reconnect gets it all again.
  const have = lab.fresh && lab.query === lab.root.dataset.query ? "&have=1" : "";
  lab.fresh = false;
  const ws = lab.ws = new WebSocket(`${proto}//${location.host}${lab.root.dataset.ws}?${lab.query}${have}`);
  lab.seq = 0;
  lab.deliver = on.message;
  const resumePlay = lab.playing;
  ws.onopen = () => {
    lab.retry = 500;
    on.open(resumePlay);
    setConn(lab, "on");
  };
  ws.onclose = (ev) => {
    lab.ws = null;
    lab.holding = null; // its answer is lost with the connection, as any
    // (the reconnect rebuilds the session from the page's address)
    on.close();
    reconnect(lab, on, ev.code);
  };
  ws.onmessage = (ev) => {
    const got = performance.now(), m = JSON.parse(ev.data);
    if (m.seq !== lab.seq + 1) { lab.ws.close(); return; } // a gap: resume by replay
    lab.seq = m.seq;
    m.got = got;
    if (!kept(lab, m)) on.message(m);
  };
}

function reconnect(lab, on, code) {
  if (code === 4000) { // idle: back when the student is
    setConn(lab, "idle");
    const back = () => {
      removeEventListener("keydown", back, true);
      removeEventListener("pointerdown", back, true);
      if (!lab.ws) connect(lab, on);
    };
    addEventListener("keydown", back, true);
    addEventListener("pointerdown", back, true);
    return;
  }
  let wait = lab.retry * (0.5 + Math.random());
  if (code === 1013) { setConn(lab, "full"); wait = 5000 + Math.random() * 10000; }
  else setConn(lab, "off");
  setTimeout(() => connect(lab, on), wait);
  lab.retry = Math.min(lab.retry * 2, 8000);
}

// send returns false when there is no connection, so the caller lets the
// form submit the ordinary way. sent keeps the messages not yet
// answered, so that one refused as over the work budget (an error with
// retry) is sent again when the server says, a few times at most.
export function send(lab, msg, tries = 0) {
  if (!lab.ws || lab.ws.readyState !== WebSocket.OPEN) return false;
  if (lab.holding && msg.type !== "undo") release(lab); // the held command stands
  msg.id = lab.nextID++;
  lab.sent.set(msg.id, { msg, tries });
  lab.ws.send(JSON.stringify(msg));
  return true;
}

export function resend(lab, m) {
  const s = lab.sent.get(m.id);
  if (!s || s.tries >= 5) return false;
  setTimeout(() => send(lab, { ...s.msg, hold: undefined }, s.tries + 1), Math.min(m.retry, 8) * 1000);
  return true;
}

// A command held (hold) is sent as the finger touches its control, so
// that the round trip is made while the finger is down: its answer waits
// in the page until the finger lifts (release), when it is drawn at once,
// and if the touch turns into a scroll an undo takes the command back
// (takeBack). Any other message sent meanwhile lets it stand. The server
// takes back only a held do that is the session's last message, on a
// world that does not play, outside class mode; when it cannot, it
// answers the undo with an error and the command stands.
export function hold(lab, msg, button) {
  if (!send(lab, { ...msg, hold: true })) return false;
  lab.holding = { id: lab.nextID - 1, button, m: null, undo: 0 };
  return true;
}

// release lets the held command stand: its answer, if come, is taken on
// now. It returns what was held.
export function release(lab) {
  const h = lab.holding;
  if (!h || h.undo) return null;
  lab.holding = null;
  if (h.m) lab.deliver(h.m);
  return h;
}

// takeBack asks the server to take the held command back.
export function takeBack(lab) {
  const h = lab.holding;
  if (!h || h.undo) return;
  if (send(lab, { type: "undo", of: h.id })) h.undo = lab.nextID - 1;
  else lab.holding = null;
}

// kept says whether the page keeps message m back: the held command's
// answer (until release), or the answer to its undo, which settles it:
// taken back, the page shows what it showed; refused, the command stood,
// and its answer is taken on (unless it was an error itself).
export function kept(lab, m) {
  const h = lab.holding;
  if (!h || !m.id) return false;
  if (m.id === h.id) {
    h.m = m;
    return true;
  }
  if (m.id !== h.undo) return false;
  lab.holding = null;
  lab.sent.delete(m.id);
  if (m.type === "error" && h.m && h.m.type !== "error") lab.deliver(h.m);
  else lab.sent.delete(h.id);
  return true;
}

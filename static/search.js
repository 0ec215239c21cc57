// Schedule searches: "prove it within bounds" beside the design challenge
// and "show the engine's shortest" beside a "break it" goal. Without this
// script the buttons submit their form to the search's page, which waits
// for the verdict. With it, the search streams its progress (server-sent
// events) into a bar with a cancel button, and its verdict into the page.

const running = new Map(); // box id → EventSource

function stop(box) {
  const es = running.get(box);
  if (es) es.close();
  running.delete(box);
  const run = document.getElementById(box + "-run");
  if (run) run.hidden = true;
}

function start(button) {
  const box = button.dataset.search;
  const out = document.getElementById(box);
  const run = document.getElementById(box + "-run");
  if (!out || !run || !window.EventSource) return false;
  stop(box);
  // What the form says (the policy, the goal) over the page's own session,
  // which the live page keeps in its address.
  const form = button.form;
  const params = new URLSearchParams(location.search);
  for (const [k, v] of new FormData(form)) {
    if (k !== "seed" && k !== "do") params.set(k, v);
  }
  params.set(button.name, button.value);
  const url = button.getAttribute("formaction") + "?" + params.toString();
  const bar = run.querySelector("progress");
  const text = run.querySelector(".search-text");
  bar.removeAttribute("value"); // indeterminate until the first part ends
  text.textContent = "";
  run.hidden = false;
  out.textContent = "";
  button.setAttribute("aria-busy", "true");
  const es = new EventSource(url);
  running.set(box, es);
  const done = () => {
    button.removeAttribute("aria-busy");
    stop(box);
  };
  es.addEventListener("progress", (e) => {
    const p = JSON.parse(e.data);
    if (p.parts > 0) {
      bar.max = p.parts;
      bar.value = p.done;
    }
    text.textContent = p.text;
  });
  es.addEventListener("verdict", (e) => {
    done();
    out.innerHTML = e.data; // the server's own markup, rendered by templ
  });
  es.addEventListener("failed", (e) => {
    done();
    const p = document.createElement("p");
    p.className = "cmd-error";
    p.textContent = e.data;
    out.replaceChildren(p);
  });
  es.onerror = () => {
    // The stream ended without a verdict (the server restarted, the
    // network went): do not let EventSource ask again by itself.
    if (running.get(box) === es) done();
  };
  run.querySelector(".search-cancel").onclick = () => {
    done();
    out.textContent = run.dataset.cancelled || "";
  };
  return true;
}

document.addEventListener("click", (e) => {
  const b = e.target.closest("button[data-search]");
  if (b && start(b)) e.preventDefault();
});

// A written worker's editor (app.js loads this file on a page that has
// one): an event the program caused (li[data-line], and the verdict's
// line) highlights its line in the editor while it is pointed at or
// focused. The editor is a plain textarea, so a bar is laid over the
// line rather than the line styled.
export function followProgramLines() {
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

// followQueue: while a Submit waits in the judgements' queue (its place
// in #program-queued), the page asks for the page at its data-again
// every 3 s, by a fetch, and puts in only its verdict box: the new place,
// or the verdict (the lab, its socket and its scroll stay); shown is
// called with the box each time. Without script, a meta refresh in a
// noscript loads the whole page instead.
export function followQueue(shown) {
  const ask = async () => {
    const q = document.getElementById("program-queued"), box = document.getElementById("program-verdict");
    if (!q || !box) return;
    let fresh = null;
    try {
      const r = await fetch(q.dataset.again);
      if (r.ok) fresh = new DOMParser().parseFromString(await r.text(), "text/html").getElementById("program-verdict");
    } catch { /* asked again in 3 s */ }
    if (fresh && document.getElementById("program-queued") === q) {
      fresh.querySelectorAll("noscript").forEach((n) => n.remove());
      box.innerHTML = fresh.innerHTML;
      shown(box);
    }
    setTimeout(ask, 3000);
  };
  setTimeout(ask, 3000);
}

// In --content mode only: reload the page when a course file changes, so
// an author sees an edit (or its errors) on save. The server sends the
// event "reload" once the content differs from the version this page was
// rendered from; EventSource reconnects by itself after a drop.
const script = document.querySelector("script[data-reload]");
if (script && "EventSource" in window) {
  const changes = new EventSource(script.dataset.reload);
  changes.addEventListener("reload", () => {
    changes.close();
    location.reload();
  });
}

// A job's live timeline: the console's server-sent events, one line per progress event,
// worded as `crag watch` words them. The answer arrives only with the final event.
(function () {
  const list = document.getElementById("timeline");
  if (!list) return;
  const ended = list.dataset.ended === "1";
  const live = document.getElementById("live-node");
  const note = document.getElementById("timeline-note");
  const source = new EventSource(list.dataset.events);
  source.addEventListener("progress", (message) => {
    const event = JSON.parse(message.data);
    const item = document.createElement("li");
    item.className = "ev ev-" + event.kind;
    item.dataset.kind = event.kind;
    if (event.kind === "grade") item.classList.add(event.data.relevant ? "ok" : "no");
    if (event.kind === "verdict") item.classList.add(event.data.grounded ? "ok" : "no");
    item.textContent = event.line;
    list.appendChild(item);
    if (event.kind === "node" && live && !ended) {
      live.textContent = "running: " + event.node;
      const status = document.getElementById("status");
      if (status && status.textContent === "queued") {
        status.textContent = "running";
        status.className = "status status-running";
      }
    }
  });
  source.addEventListener("problem", (message) => {
    note.textContent = JSON.parse(message.data);
  });
  source.addEventListener("end", (message) => {
    source.close();
    const data = JSON.parse(message.data || "{}");
    if (data.expired) {
      note.textContent = "This job's events have expired (they are kept an hour after its last one).";
    }
    if (live) live.textContent = "";
    if (!ended && !data.expired) window.setTimeout(() => window.location.reload(), 300);
  });
})();

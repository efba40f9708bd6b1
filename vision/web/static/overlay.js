// OBS browser source: each seat's melds, flowers and river, the last discard and a winning hand's score,
// from the server-sent events of /api/events.
const seats = {};
const FIELDS = {discards: "River", melds: "Melds", flowers: "Flowers", exposed: "Exposed", concealed: "Hand", winning_tile: "Winning tile"};

function seatBox(seat) {
  if (!seats[seat]) {
    const div = document.createElement("div");
    div.className = "seat"; div.id = "seat-" + seat;
    const h = document.createElement("h3"); h.textContent = seat; div.appendChild(h);
    document.getElementById("seats").appendChild(div);
    seats[seat] = {div, lines: {}};
  }
  return seats[seat];
}

function setLine(seat, field, text, now) {
  const s = seatBox(seat);
  if (!s.lines[field]) { s.lines[field] = document.createElement("div"); s.lines[field].className = "line " + field; s.div.appendChild(s.lines[field]); }
  s.lines[field].textContent = `${FIELDS[field] || field}: ${now || text}`;
}

const events = new EventSource("/api/events");
events.addEventListener("change", m => {
  const e = JSON.parse(m.data);
  setLine(e.seat, e.field, e.text, e.now);
  if (e.field === "discards") {
    const last = document.getElementById("last");
    const code = e.text.trim().split(/\s+/).pop();
    last.hidden = false; last.textContent = `${e.seat} discards ${tileLabel(code)} (${code})`;
  }
});
events.addEventListener("table", m => {
  const t = JSON.parse(m.data).table;
  const r = t && t.result;
  if (r && r.is_win) {
    const w = document.getElementById("win");
    w.hidden = false; w.textContent = `${t.seat} wins: ${r.total} ${r.rules === "sichuan" ? "番" : "分"}`;
  }
});
events.addEventListener("end", () => events.close());
events.addEventListener("error", m => { if (m.data) console.warn(m.data); });

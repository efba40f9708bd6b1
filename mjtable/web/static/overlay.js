// OBS browser source: each seat's melds, flowers and river, the last discard and a winning hand's score, from
// the server-sent events of /api/events (a snapshot first, then changes). Text goes in through textContent only.
"use strict";
const SEATS = ["self", "right", "across", "left"];
const SEAT_CN = {self: "本家", right: "下家", across: "对家", left: "上家"};
const seats = {};            // seat -> {field: whole value as text}
let lastDiscard = null;      // {seat, tile}

function el(tag, cls, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
}

function tiles(list, extraOf) {
  return list.map((c, i) => tileNode(c, extraOf ? extraOf(i) : "", "span"));
}

function line(label, children, cls) {
  const d = el("div", "line " + (cls || ""));
  d.appendChild(el("span", "label", label));
  const box = el("div", cls === "river-line" ? "river" : "tiles");
  box.append(...children);
  d.appendChild(box);
  return d;
}

function melds(text) {                      // "[123s<] [666z^] [back 5m 5m back?]" -> spans of tiles
  return (text.match(/\[[^\]]*\]/g) || []).map(m => {
    const span = el("span", "meld");
    const inner = m.slice(1, -1).replace(/[<^>+?]+$/, "");
    const list = [];
    for (const part of inner.match(/back|\d+[mpszf]/g) || []) {
      if (part === "back") list.push("back");
      else for (const d of part.slice(0, -1)) list.push(d + part.slice(-1));
    }
    span.append(...tiles(list));
    return span;
  });
}

function render(seat) {
  const box = document.getElementById("seat-" + seat);
  if (!box) return;
  const f = seats[seat] || {};
  box.replaceChildren(el("h3", "", `${seat} ${SEAT_CN[seat] || ""}`));
  if (f.concealed) {
    const hand = tiles(codes(f.concealed));
    if (f.winning_tile) hand.push(el("span", "label", "+"), ...tiles(codes(f.winning_tile)));
    box.appendChild(line("Hand", hand));
  } else if (f.winning_tile) box.appendChild(line("Wins on", tiles(codes(f.winning_tile))));
  if (f.melds) box.appendChild(line("Melds", melds(f.melds)));
  if (f.flowers) box.appendChild(line("Flowers", tiles(codes(f.flowers))));
  if (f.exposed) box.appendChild(line("Exposed", tiles(codes(f.exposed))));
  const river = codes(f.discards);
  const newest = lastDiscard && lastDiscard.seat === seat ? river.length - 1 : -1;
  box.appendChild(line("River", tiles(river, i => (i === newest ? "newest" : "")), "river-line"));
  box.hidden = false;
}

function showLast() {
  const last = document.getElementById("last");
  if (!lastDiscard) { last.hidden = true; return; }
  last.replaceChildren(el("span", "", `${lastDiscard.seat} discards`), tileNode(lastDiscard.tile, "", "span"),
                       el("span", "", tileLabel(lastDiscard.tile)));
  last.hidden = false;
}

function showWin(w) {
  const box = document.getElementById("win");
  const r = w.result;
  if (!r) return;
  const unit = r.rules === "sichuan" ? "番" : "分";
  box.replaceChildren(el("div", "total", r.is_win ? `${w.seat} wins: ${r.total} ${unit}` : `${w.seat}: not a win`));
  if (w.hand) {
    const hand = el("div", "hand");
    for (const g of parseHand(w.hand)) {
      const span = el("span", "meld");
      span.append(...tiles(g.tiles));
      hand.appendChild(span);
    }
    box.appendChild(hand);
  }
  box.appendChild(el("div", "fans", r.is_win ? r.fans.map(f => `${f.name_cn} ${f.points}`).join(" · ") : (r.reason || "")));
  box.hidden = false;
}

function state(text) { document.getElementById("state").textContent = text; }

const events = new EventSource("/api/events");
// A refused stream (a server started without --source answers 404) closes for good: say why instead of a blank page.
events.onerror = () => {
  if (events.readyState !== EventSource.CLOSED) return;           // the browser reconnects by itself
  fetch("/api/events").then(r => r.json()).then(d => state(d.error || "no live source"))
    .catch(() => state("the server cannot be reached"));
};
events.addEventListener("snapshot", m => {
  const s = JSON.parse(m.data);
  for (const k of Object.keys(seats)) delete seats[k];
  Object.assign(seats, s.seats);
  lastDiscard = s.last_discard;
  SEATS.forEach(render);
  showLast();
  if (s.wins && s.wins.length) showWin(s.wins[s.wins.length - 1]);
  state(s.error ? "source: " + s.error : (s.source_ended ? "source ended" : "live"));
});
events.addEventListener("change", m => {
  const e = JSON.parse(m.data);
  (seats[e.seat] = seats[e.seat] || {})[e.field] = e.now;
  if (e.field === "discards" && e.text.startsWith("discards ")) {
    lastDiscard = {seat: e.seat, tile: e.text.trim().split(/\s+/).pop()};
    SEATS.forEach(render);
    showLast();
  } else render(e.seat);
});
events.addEventListener("win", m => showWin(JSON.parse(m.data)));
events.addEventListener("table", m => {
  const t = JSON.parse(m.data).table;
  if (t && t.result && t.seat && document.getElementById("win").hidden) showWin({seat: t.seat, hand: t.hand && t.hand.hand, result: t.result});
});
events.addEventListener("error", m => { if (m.data) state("source: " + JSON.parse(m.data).error); });
events.addEventListener("end", () => { state("source ended"); events.close(); });

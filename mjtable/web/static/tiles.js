// Tiles as pictures drawn with text and CSS (no image files), and the hand notation <-> groups of tile codes.
// Shared by the phone page and the overlay. Codes: "5m" characters, "3p" dots, "7s" bamboo, "1z".."7z" honours
// (East South West North White Green Red), "1f".."8f" flowers (spring summer autumn winter plum orchid
// chrysanthemum bamboo), "back" a face-down tile.
"use strict";
const SUIT_NAMES = {m: "万", p: "饼", s: "条"};
const SUIT_EN = {m: "characters", p: "dots", s: "bamboo"};
const CN_NUM = ["", "一", "二", "三", "四", "五", "六", "七", "八", "九"];
const HONOURS = ["", "东", "南", "西", "北", "白", "发", "中"];
const HONOURS_EN = ["", "East", "South", "West", "North", "White", "Green", "Red"];
const FLOWERS = ["", "春", "夏", "秋", "冬", "梅", "兰", "菊", "竹"];
const ALL_TILES = (() => {
  const out = [];
  for (const s of "mps") for (let n = 1; n <= 9; n++) out.push(n + s);
  for (let n = 1; n <= 7; n++) out.push(n + "z");
  return out;
})();
const ALL_FLOWERS = [1, 2, 3, 4, 5, 6, 7, 8].map(n => n + "f");

function tileLabel(code) {
  if (code === "back") return "face down";
  const n = +code.slice(0, -1), s = code.slice(-1);
  if (s === "z") return HONOURS[n] || code;
  if (s === "f") return FLOWERS[n] || code;
  return n + (SUIT_NAMES[s] || s);
}

function tileName(code) {
  if (code === "back") return "a face-down tile";
  const n = +code.slice(0, -1), s = code.slice(-1);
  if (s === "z") return `${HONOURS_EN[n] || code} (${code})`;
  if (s === "f") return `flower ${n} (${code})`;
  return `${n} of ${SUIT_EN[s] || s} (${code})`;
}

// The face of one tile: a rank above its suit for the suits, one character for honours and flowers.
function tileFace(el, code) {
  el.replaceChildren();
  if (code === "back") { el.classList.add("t-back"); return el; }
  const n = +code.slice(0, -1), s = code.slice(-1);
  el.classList.add("t-" + s);
  if (s === "m" || s === "p" || s === "s") {
    const rank = document.createElement("span");
    rank.className = "rank";
    rank.textContent = s === "m" ? CN_NUM[n] : String(n);
    const suit = document.createElement("span");
    suit.className = "suit";
    suit.textContent = SUIT_NAMES[s];
    el.append(rank, suit);
  } else {
    const one = document.createElement("span");
    one.className = "one" + (s === "z" ? " z" + n : "") + (s === "f" ? " f" + (n <= 4 ? "season" : "plant") : "");
    one.textContent = s === "z" && n === 5 ? "" : (s === "z" ? HONOURS[n] : FLOWERS[n]);
    el.appendChild(one);
    if (s === "f") { const k = document.createElement("span"); k.className = "fnum"; k.textContent = String((n - 1) % 4 + 1); el.appendChild(k); }
  }
  return el;
}

// A tile as a button (the page: tap to correct) or a span (the overlay).
function tileNode(code, extra, tag) {
  const b = document.createElement(tag || "button");
  if (!tag || tag === "button") b.type = "button";
  b.className = "tile" + (extra ? " " + extra : "");
  b.title = tileName(code);
  b.setAttribute("aria-label", tileName(code));
  b.dataset.code = code;
  return tileFace(b, code);
}

// "7889s [123s<] [666z^] [1111m] +8s 15f" -> [{kind: concealed|meld|win|flowers, mark, tiles: ["7s", ...]}]
function parseHand(text) {
  return (text || "").trim().split(/\s+/).filter(Boolean).map(tok => {
    let kind = "concealed", mark = "", body = tok;
    if (tok.startsWith("[")) {
      kind = "meld"; body = tok.replace(/^\[|\]$/g, "");
      const m = body.match(/[<^>+?]+$/);
      if (m) { mark = m[0]; body = body.slice(0, -mark.length); }
    } else if (tok.startsWith("+")) { kind = "win"; body = tok.slice(1); }
    const tiles = [];
    for (const part of body.match(/\d+[mpszf]/g) || []) for (const d of part.slice(0, -1)) tiles.push(d + part.slice(-1));
    if (kind === "concealed" && tiles.length && tiles.every(t => t.endsWith("f"))) kind = "flowers";
    return {kind, mark, tiles};
  });
}

function formatHand(groups) {
  return groups.map(g => {
    const t = g.tiles.join("");
    if (g.kind === "meld") return "[" + t + g.mark + "]";
    if (g.kind === "win") return "+" + t;
    return t;
  }).join(" ");
}

// "1m 2m 3m" -> ["1m", "2m", "3m"]; melds in notation -> groups
function codes(text) { return (text || "").trim().split(/\s+/).filter(c => /^(\d[mpszf]|back)$/.test(c)); }

// Tile codes ("5m", "7z", "3f") <-> notation groups; shared by the page and the overlay.
const SUIT_NAMES = {m: "万", p: "饼", s: "条"};
const HONOURS = ["", "东", "南", "西", "北", "白", "发", "中"];
const FLOWERS = ["", "春", "夏", "秋", "冬", "梅", "兰", "菊", "竹"];
function tileLabel(code) {
  const n = code.slice(0, -1), s = code.slice(-1);
  if (s === "z") return HONOURS[+n] || code;
  if (s === "f") return FLOWERS[+n] || code;
  return n + (SUIT_NAMES[s] || s);
}
function tileNode(code, extra) {
  const b = document.createElement("button");
  b.type = "button"; b.className = "tile" + (extra ? " " + extra : "");
  b.textContent = tileLabel(code); b.title = code; b.dataset.code = code;
  return b;
}
// "7889s [123s<] [666z<] [1111m] +8s 15f" -> [{kind, mark, tiles: ["7s", ...]}]
function parseHand(text) {
  return text.trim().split(/\s+/).filter(Boolean).map(tok => {
    let kind = "concealed", mark = "", body = tok;
    if (tok.startsWith("[")) { kind = "meld"; body = tok.slice(1, -1); const m = body.match(/[<^>+]+$/); if (m) { mark = m[0]; body = body.slice(0, -mark.length); } }
    else if (tok.startsWith("+")) { kind = "win"; body = tok.slice(1); }
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

// The phone page: upload a photo, show what was read, let the player correct a tile in one tap and re-score.
const $ = id => document.getElementById(id);
let current = null;   // {groups, result, tiles, form}

function situation() {
  const f = new FormData($("read"));
  const [rules, profile] = $("ruleset").value.split("/");
  const s = {rules, profile, seat_wind: f.get("seat_wind"), round_wind: f.get("round_wind")};
  for (const k of ["self_drawn", "last_tile", "kong_replacement", "robbing_kong", "last_copy"]) s[k] = f.get(k) === "true";
  return s;
}

function say(text, error) { $("status").textContent = text; $("status").className = error ? "error" : ""; }

function show(result) {
  $("out").hidden = false;
  const r = result.result;
  $("total").textContent = r ? (r.is_win ? `${r.total} ${r.rules === "sichuan" ? "番" : "分"}` : `Not a win: ${r.reason}`)
                             : (result.note || "No hand to score");
  const body = $("fans").tBodies[0];
  body.replaceChildren();
  for (const f of (r ? r.fans : [])) {
    const tr = body.insertRow();
    for (const v of [f.name_cn, f.name_en, f.count > 1 ? `${f.value} x${f.count}` : f.value, f.points]) tr.insertCell().textContent = v;
  }
  $("payments").textContent = r && r.is_win ? "Payments: " + Object.entries(r.payments).map(([k, v]) => `${k} ${v}`).join(", ") : "";
  $("findings").replaceChildren(...(result.findings.length ? result.findings : [{message: "No violation found"}]).map(f => {
    const li = document.createElement("li");
    li.textContent = f.kind ? `[${f.severity}] ${f.message} — ${f.clause}: ${f.penalty}` : f.message;
    return li;
  }));
  const notes = (result.unplaced || []).map(u => "Reading note: " + u)
    .concat((result.doubtful || []).map(d => `Doubtful: ${d.kind} (p ${d.p}) — check it`));
  $("notes").replaceChildren(...notes.map(n => { const li = document.createElement("li"); li.textContent = n; return li; }));
  renderHand();
}

function alternatives(code) {
  const t = (current.tiles || []).find(t => t.kind === code && t.alternatives.length);
  return t ? t.alternatives.map(a => a.kind) : [];
}

function renderHand() {
  const doubt = new Set((current.doubtful || []).map(d => d.kind));
  $("hand").replaceChildren(...current.groups.map((g, gi) => {
    const div = document.createElement("div");
    div.className = "group " + g.kind;
    g.tiles.forEach((code, ti) => {
      const b = tileNode(code, doubt.has(code) ? "doubt" : "");
      b.addEventListener("click", () => pick(gi, ti));
      div.appendChild(b);
    });
    return div;
  }));
}

function pick(gi, ti) {
  const code = current.groups[gi].tiles[ti];
  const p = $("picker");
  p.hidden = false;
  p.replaceChildren();
  const head = document.createElement("div");
  head.textContent = `Replace ${tileLabel(code)} with:`;
  p.appendChild(head);
  const likely = alternatives(code);
  const all = [];
  for (const s of "mps") for (let n = 1; n <= 9; n++) all.push(n + s);
  for (let n = 1; n <= 7; n++) all.push(n + "z");
  for (const c of likely.concat(all.filter(c => !likely.includes(c)))) {
    const b = tileNode(c, likely.includes(c) ? "likely" : "");
    b.addEventListener("click", () => { current.groups[gi].tiles[ti] = c; p.hidden = true; rescore(); });
    p.appendChild(b);
  }
}

async function rescore() {
  say("Scoring…");
  const body = {...situation(), hand: formatHand(current.groups)};
  const res = await fetch("/api/score", {method: "POST", headers: {"Content-Type": "application/json"}, body: JSON.stringify(body)});
  const data = await res.json();
  if (!res.ok) { say(data.error || `error ${res.status}`, true); renderHand(); return; }
  say("Re-scored with your correction.");
  current.result = data.result;
  show(data.result);
}

$("read").addEventListener("submit", async ev => {
  ev.preventDefault();
  const f = new FormData($("read"));
  const [rules, profile] = $("ruleset").value.split("/");
  f.set("rules", rules); f.set("profile", profile); f.delete("ruleset");
  say("Reading the photo…");
  $("go").disabled = true;
  try {
    const res = await fetch("/api/read", {method: "POST", body: f});
    const data = await res.json();
    if (!res.ok) { say(data.error || `error ${res.status}`, true); return; }
    const r = data.result;
    current = {result: r, tiles: r.tiles, doubtful: r.doubtful, groups: r.hand ? parseHand(r.hand.hand) : []};
    $("annotated").src = data.annotated || "";
    say("");
    show(r);
  } catch (e) { say("The server could not be reached: " + e, true); }
  finally { $("go").disabled = false; }
});

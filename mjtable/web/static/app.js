// The phone page: upload a photo, show what was read, let the player correct a tile in two taps and re-score.
// Every text from the server or the user goes into the page through textContent, never as HTML.
"use strict";
const $ = id => document.getElementById(id);
let current = null;   // {reading, groups, corrected: Set of "gi/ti"}

function rulesAndProfile() { return $("ruleset").value.split("/"); }

function situation() {
  const f = new FormData($("read"));
  const [rules, profile] = rulesAndProfile();
  const s = {rules, profile, seat_wind: f.get("seat_wind"), prevalent_wind: f.get("prevalent_wind")};
  for (const k of ["self_drawn", "last_tile", "kong_replacement", "robbing_kong", "last_copy", "after_kong_discard",
                   "heavenly_win", "earthly_win", "human_win"]) s[k] = f.get(k) === "true";
  s.winning_tile_apart = f.get("winning_tile_apart") !== "false";   // the box is ticked when it was not
  if (rules === "sichuan" && f.get("void_suit")) s.void_suit = f.get("void_suit");
  const facts = refereeFacts(f, rules);
  if (facts.length) s.referee_facts = facts;
  return s;
}

// The referee facts ticked on the page (MCR only): names, and warnings_before=N for ruling 12.
function refereeFacts(f, rules) {
  if (rules === "sichuan") return [];
  const facts = f.getAll("referee_fact");
  if (f.get("warnings_before")) facts.push("warnings_before=" + f.get("warnings_before"));
  return facts;
}

function say(text, error) { $("status").textContent = text; $("status").className = error ? "error" : ""; }

// A photo read unsurely or not at all: why, and how to take it again (closer, landscape, the near hand only).
// An unreadable photo shows this in place of an empty result; a doubtful one shows it above the result.
function showRetake(why, advice, unreadable) {
  $("retake").hidden = !(unreadable || (why && why.length) || (advice && advice.length));
  $("retake-head").textContent = unreadable ? "This photo could not be read: take it again"
    : "Read unsurely: what rests on the doubts below is a check, not a penalty";
  $("retake-why").replaceChildren(...(why || []).map(w => li(w)));
  $("retake-advice").replaceChildren(...(advice || []).map(a => li(a, "advice")));
  if (unreadable) $("out").hidden = true;
}

function li(text, cls) { const e = document.createElement("li"); e.textContent = text; if (cls) e.className = cls; return e; }

function show(reading) {
  $("out").hidden = false;
  const r = reading.result;
  const unit = r && r.rules === "sichuan" ? "番" : "分";
  $("total").textContent = r ? `${r.total} ${unit}` : (reading.note || "No hand to score");
  $("total").className = "total" + (r && r.is_win ? "" : " nowin");
  $("verdict").textContent = r ? (r.is_win ? "和牌 — a winning hand" : `Not a win: ${r.reason}`) : "";
  $("verdict").className = "verdict" + (r && r.is_win ? "" : " error");
  const body = $("fans").tBodies[0];
  body.replaceChildren();
  for (const f of (r ? r.fans : [])) {
    const tr = body.insertRow();
    for (const v of [f.name_cn, f.name_en, f.count > 1 ? `${f.value} ×${f.count}` : f.value, f.points]) tr.insertCell().textContent = v;
  }
  $("fans").hidden = !(r && r.fans.length);
  $("payments").replaceChildren();
  if (r && r.is_win && r.payments && Object.keys(r.payments).length) {
    const h = document.createElement("strong"); h.textContent = "Payments to the winner: ";
    $("payments").appendChild(h);
    const list = document.createElement("span");
    list.textContent = Object.entries(r.payments).map(([who, v]) => `${who} pays ${v}`).join(" · ");
    $("payments").appendChild(list);
  }
  const findings = reading.findings || [];
  $("findings").replaceChildren(...(findings.length ? findings.map(f =>
    li(`[${f.severity}] ${f.kind} (${f.seat || "table"}): ${f.message} — ${f.clause}: ${f.penalty}`, f.severity))
    : [li("No violation found", "ok")]));
  const notes = (reading.unplaced || []).map(u => "Reading note: " + u)
    .concat((reading.doubtful || []).map(d => `Doubtful tile: ${tileLabel(d.kind)} (${d.kind}, p ${d.p}`
      + (d.flower_p ? `; a flower or season p ${d.flower_p}` : "") + ") — check it"));
  if (reading.note && r) notes.push(reading.note);
  $("legal").replaceChildren(...(reading.legal ? [legalOffer(reading.legal)] : []));   // first, above the score
  $("notes").replaceChildren(...notes.map(n => li(n)));
  renderHand();
}

// The tiles as read break the rules (a fifth copy, a declared win without a winning shape): the likeliest reading
// that keeps them (vision/legal.py), offered first, with a button that makes its changes and re-scores.
function legalOffer(legal) {
  const what = legal.changes.map(c => `${c.legal} read as ${c.read} (p ${c.p_read.toFixed(2)})`).join("; ");
  const r = legal.result;
  const made = r && r.is_win ? `a winning hand of ${r.total} ${r.rules === "sichuan" ? "番" : "分"}` : "a hand the rules allow";
  const e = li(`Legal reading: ${what} would make ${made}, where the tiles as read ${legal.why}; check it `, "legal");
  const b = document.createElement("button");
  b.type = "button"; b.id = "use-legal"; b.textContent = "Use the legal reading";
  b.addEventListener("click", () => useLegal(legal));
  e.appendChild(b);
  return e;
}

const LEGAL_GROUPS = {concealed: "concealed", winning: "win", flower: "flowers"};

async function useLegal(legal) {
  const before = current.groups.map(g => g.tiles.slice());
  const done = [];
  for (const c of legal.changes) {
    const gi = current.groups.findIndex(g => g.kind === LEGAL_GROUPS[c.group] && g.tiles.includes(c.read));
    const at = gi >= 0 ? gi : current.groups.findIndex(g => ["concealed", "win"].includes(g.kind) && g.tiles.includes(c.read));
    if (at < 0) continue;
    const ti = current.groups[at].tiles.indexOf(c.read);
    current.groups[at].tiles[ti] = c.legal;
    done.push(at + "/" + ti);
  }
  const ok = await rescore();
  if (ok) done.forEach(k => current.corrected.add(k));
  else current.groups.forEach((g, i) => { g.tiles = before[i]; });
  renderHand();
}

// The detections of the scored seat that make up a group of the hand (layout groups: concealed, winning,
// flower, meld:<i>), to find the tapped tile's next likeliest kinds.
function detectionsOf(gi) {
  const g = current.groups[gi];
  const seat = current.reading.seat;
  const meldIndex = current.groups.slice(0, gi).filter(x => x.kind === "meld").length;
  const want = {concealed: ["concealed"], win: ["winning"], flowers: ["flower"], meld: ["meld:" + meldIndex]}[g.kind];
  return (current.reading.tiles || []).filter(t => (seat === null || t.seat === seat) && want.includes(t.group));
}

function alternatives(gi, code) {
  let same = detectionsOf(gi).filter(t => t.kind === code);
  if (!same.length) same = (current.reading.tiles || []).filter(t => t.kind === code);
  if (!same.length) return [];
  const t = same.reduce((a, b) => (b.p < a.p ? b : a));          // the least sure copy of it
  return t.alternatives.filter(a => a.kind !== "back");
}

function renderHand() {
  const doubt = new Set((current.reading.doubtful || []).map(d => d.kind));
  $("hand").replaceChildren(...current.groups.map((g, gi) => {
    const div = document.createElement("div");
    div.className = "group " + g.kind;
    g.tiles.forEach((code, ti) => {
      const key = gi + "/" + ti;
      const extra = current.corrected.has(key) ? "corrected" : (doubt.has(code) ? "doubt" : "");
      const b = tileNode(code, extra);
      b.addEventListener("click", () => pick(gi, ti, b));
      div.appendChild(b);
    });
    return div;
  }));
}

function pick(gi, ti, button) {
  const g = current.groups[gi];
  const code = g.tiles[ti];
  const p = $("picker");
  p.replaceChildren();
  const head = document.createElement("div");
  head.className = "head";
  head.textContent = `Replace ${tileLabel(code)} (${code}) with:`;
  const cancel = document.createElement("button");
  cancel.type = "button"; cancel.className = "cancel"; cancel.textContent = "Cancel";
  cancel.addEventListener("click", () => { p.hidden = true; });
  head.appendChild(cancel);
  p.appendChild(head);
  const likely = alternatives(gi, code).filter(a => a.kind !== code);
  if (likely.length) {
    const row = document.createElement("div");
    row.className = "likely-row";
    const lab = document.createElement("span"); lab.textContent = "Likeliest: "; row.appendChild(lab);
    for (const a of likely) {
      const wrap = document.createElement("span"); wrap.className = "choice";
      const b = tileNode(a.kind, "likely");
      b.addEventListener("click", () => replace(gi, ti, a.kind));
      const pct = document.createElement("small");
      pct.textContent = a.p >= 0.01 ? `${Math.round(a.p * 100)} %` : "< 1 %";
      wrap.append(b, pct);
      row.appendChild(wrap);
    }
    p.appendChild(row);
  }
  const all = document.createElement("div");
  all.className = "all";
  const choices = g.kind === "flowers" ? ALL_FLOWERS : ALL_TILES;
  for (const c of choices) {
    if (c === code) continue;
    const b = tileNode(c, "");
    b.addEventListener("click", () => replace(gi, ti, c));
    all.appendChild(b);
  }
  p.appendChild(all);
  p.hidden = false;
  p.scrollIntoView({block: "nearest"});
}

async function replace(gi, ti, code) {
  const before = current.groups[gi].tiles[ti];
  current.groups[gi].tiles[ti] = code;
  $("picker").hidden = true;
  const ok = await rescore();
  if (ok) current.corrected.add(gi + "/" + ti);
  else current.groups[gi].tiles[ti] = before;
  renderHand();
}

async function rescore() {
  say("Scoring…");
  const body = {...situation(), hand: formatHand(current.groups)};
  try {
    const res = await fetch("/api/score", {method: "POST", headers: {"Content-Type": "application/json"},
                                           body: JSON.stringify(body)});
    const data = await res.json();
    if (!res.ok) { say(`Not scored: ${data.error || "error " + res.status}`, true); return false; }
    const tiles = current.reading.tiles, seat = current.reading.seat;
    current.reading = {...data.result, tiles, seat: seat};
    say(`Re-scored with your correction: ${formatHand(current.groups)} (the hand as you set it: its findings no ` +
        `longer rest on the photo's doubts)`);
    showRetake([], [], false);
    show(current.reading);
    return true;
  } catch (e) { say("The server could not be reached: " + e, true); return false; }
}

$("photo").addEventListener("change", () => {
  const f = $("photo").files[0];
  $("chosen").textContent = f ? f.name : "";
});

$("ruleset").addEventListener("change", () => {
  document.body.classList.toggle("is-sichuan", rulesAndProfile()[0] === "sichuan");
});

$("read").addEventListener("submit", async ev => {
  ev.preventDefault();
  if (!$("photo").files.length) { say("Choose a photo first.", true); return; }
  const f = new FormData($("read"));
  const [rules, profile] = rulesAndProfile();
  f.set("rules", rules); f.set("profile", profile); f.delete("ruleset");
  if (rules !== "sichuan") { f.delete("void_suit"); f.delete("after_kong_discard"); }
  else if (!f.get("void_suit")) f.delete("void_suit");
  const facts = refereeFacts(f, rules);
  f.delete("referee_fact"); f.delete("warnings_before");
  if (facts.length) f.set("referee_facts", facts.join(","));
  say("Reading the photo…");
  $("go").disabled = true;
  try {
    const res = await fetch("/api/read", {method: "POST", body: f});
    const data = await res.json();
    if (!res.ok) {
      const wait = res.headers.get("Retry-After");
      say((data.error || `error ${res.status}`) + (wait ? ` (try again in ${wait} s)` : ""), true);
      showRetake([], data.advice, true);
      return;
    }
    const r = data.result;
    current = {reading: r, groups: r.hand ? parseHand(r.hand.hand) : [], corrected: new Set()};
    if (data.annotated) $("annotated").src = data.annotated; else $("annotated").removeAttribute("src");
    say("");
    $("picker").hidden = true;
    show(r);
    const t = r.trust;
    const unsure = t && t.state !== "trusted";
    showRetake(unsure ? t.reasons : [], unsure ? t.advice : [], t && t.state === "unreadable");
  } catch (e) { say("The server could not be reached: " + e, true); }
  finally { $("go").disabled = false; }
});

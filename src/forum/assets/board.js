// The board page (FOR-09, FOR-13), loaded after forum.js and using its helpers ($, el, notice, getJson, postJson,
// sender, follow). The page a general keeps open: what needs a person first, then the counts, then the
// running work, then the rest folded away. Every server text goes in with textContent (FOR-10).
// biome-ignore lint/suspicious/noRedundantUseStrict: a classic <script defer>, not a module, so the directive does apply
"use strict";

/* global $, el, notice, getJson, postJson, sender, follow */

/** Where a task goes: `attention` (a person is needed), `running`, or `rest`; `why` is what the card says first. */
function place(t, wakes) {
  const state = t.state || t.status; // TSK-12; older servers send no state
  if (state === "blocked") return { group: "attention", tone: "blocked", why: t.question ? `asks: ${t.question}` : "blocked, with no question recorded" };
  if (state === "failed" || state === "interrupted") {
    const note = wakes.find((w) => w.task_id === t.id && w.note)?.note;
    const last = [...(t.output_tail || [])].reverse().find((l) => l.trim() !== "");
    return { group: "attention", tone: "failed", why: `${state}: ${note || last || "no output recorded"}` };
  }
  if (state === "unconfirmed") return { group: "attention", tone: "blocked", why: "stopped without saying it is done: look at its screen" };
  if (state === "done" && t.kind === "mission") return { group: "attention", tone: "ready", why: `ready to land: vx land ${t.id}` };
  if (state === "running" || state === "pending") return { group: "running", tone: "", why: "" };
  return { group: "rest", tone: "", why: "" };
}

function age(iso) {
  const s = Math.max(0, (Date.now() - Date.parse(iso)) / 1000);
  if (!Number.isFinite(s)) return "?";
  if (s < 60) return `${Math.floor(s)}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m`;
  if (s < 86400) return `${Math.floor(s / 3600)}h`;
  return `${Math.floor(s / 86400)}d`;
}

// Blocked first, then failed, then ready to land; inside each the longest waiting first.
const TONE_ORDER = { blocked: 0, failed: 1, ready: 2, "": 3 };

/** One task as a card: focusable, so the keyboard walks the board card by card. */
function taskCard(item, shown, manyProjects) {
  const { t, p, where } = item;
  const state = t.state || t.status;
  const li = el("li", `card ${state}${where.tone ? ` ${where.tone}` : ""}`);
  li.tabIndex = 0;
  li.dataset.task = t.id;
  li.dataset.status = t.status;
  li.dataset.state = state;
  li.dataset.key = `${p.project_path}\n${t.id}`;
  const top = el("div", "top");
  top.append(el("span", `badge ${state}`, state), el("code", "", t.id.slice(0, 8)), el("span", "", t.kind), el("span", "", `${age(t.created_at)} old`));
  const harness = [t.harness, t.backend].filter(Boolean).join(" / ");
  if (harness) top.append(el("span", "", harness));
  top.append(el("span", "", t.machine ? `on machine ${t.machine}` : "on this machine"));
  if (manyProjects) top.append(el("span", "", p.project_path.split("/").pop() || p.project_path));
  li.append(top, el("p", "prompt", t.prompt || t.first_line || "(no prompt)"));
  if (where.why) li.append(el("p", `say ${where.tone}`, where.why));
  const facts = [t.camp_branch, t.diff_stat, t.landed_commit ? `landed at ${t.landed_commit.slice(0, 12)}` : "", t.report_path ? `report: ${t.report_path}` : ""].filter(Boolean);
  if (facts.length) li.append(el("p", "meta", facts.join(" · ")));
  if (t.output_tail?.length) {
    const d = el("details");
    d.dataset.key = li.dataset.key;
    d.open = shown.open.has(li.dataset.key);
    d.append(el("summary", "", "last output"), el("pre", "", t.output_tail.join("\n")));
    li.append(d);
  }
  // The place for the card's actions (decide, land, resume from the browser) and, later, its cost and live screen.
  li.append(el("div", "actions"));
  return li;
}

function section(id, title, count, body) {
  const s = el("section", "group");
  s.id = id;
  const h = el("h2", "", title);
  if (count !== undefined) h.append(el("span", "n", ` (${count})`));
  s.append(h, body);
  return s;
}

function cardList(items, shown, many) {
  const ul = el("ul", "cards");
  ul.append(...items.map((i) => taskCard(i, shown, many)));
  return ul;
}

function countsStrip(items, wakes) {
  const n = (f) => items.filter(f).length;
  const st = (i) => i.t.state || i.t.status;
  const counts = [
    ["running", "running", n((i) => st(i) === "running" || st(i) === "pending")],
    ["blocked", "blocked", n((i) => st(i) === "blocked")],
    ["ready", "ready to land", n((i) => i.where.tone === "ready")],
    ["landed", "landed", n((i) => st(i) === "landed")],
    ["failed", "failed", n((i) => st(i) === "failed" || st(i) === "interrupted")],
    ["wakes", "wakes waiting", wakes],
  ];
  const ul = el("ul", "counts");
  ul.setAttribute("aria-label", "counts");
  for (const [key, label, value] of counts) {
    const li = el("li");
    li.dataset.count = key;
    li.append(el("b", "", String(value)), el("span", "", label));
    ul.append(li);
  }
  return ul;
}

function boardPage() {
  const boxes = new Map();

  /** A project's panel, kept across renders so a half-written message survives a refresh. */
  function projectPanel(p) {
    let c = boxes.get(p.project_path);
    if (c) return c;
    const panel = el("section", "project");
    panel.dataset.project = p.project_path;
    const meta = el("p", "meta");
    const form = el("form", "box");
    const textarea = el("textarea");
    textarea.rows = 2;
    textarea.placeholder = "Message this project's commander";
    textarea.setAttribute("aria-label", `message the commander of ${p.project_path}`);
    const button = el("button", "", "Send");
    button.type = "submit";
    const status = el("span", "status");
    form.append(textarea, button, status);
    sender(form, textarea, button, status, (text) => postJson("/api/projects/messages", { project_path: p.project_path, text }));
    panel.append(el("h3", "", p.project_path), meta, form);
    c = { panel, meta };
    boxes.set(p.project_path, c);
    return c;
  }

  function render(doc) {
    const main = $("projects");
    if (doc.projects.length === 0) {
      main.replaceChildren(el("p", "empty", "No project yet: run vx init in a repository, then dispatch a soldier."));
      boxes.clear();
      return;
    }
    // What the re-render must keep: the focused card and the opened outputs.
    const active = document.activeElement;
    const focused = active?.closest?.(".card")?.dataset.key;
    const shown = { open: new Set([...main.querySelectorAll("details[open]")].map((d) => d.dataset.key)) };
    const items = [];
    let wakes = 0;
    for (const p of doc.projects) {
      wakes += p.wakes.length;
      for (const t of p.tasks) items.push({ t, p, where: place(t, p.wakes) });
    }
    const many = doc.projects.length > 1;
    const by = (key) => (a, b) => Date.parse(a.t[key]) - Date.parse(b.t[key]);
    const attention = items.filter((i) => i.where.group === "attention").sort((a, b) => TONE_ORDER[a.where.tone] - TONE_ORDER[b.where.tone] || by("updated_at")(a, b));
    const running = items.filter((i) => i.where.group === "running").sort(by("created_at"));
    const rest = items.filter((i) => i.where.group === "rest").sort((a, b) => by("updated_at")(b, a));

    const needs = attention.length ? cardList(attention, shown, many) : el("p", "calm", "Nothing needs you: no soldier is blocked, failed or ready to land.");
    const parts = [section("attention", "Needs you", attention.length, needs), countsStrip(items, wakes)];
    parts.push(section("running", "Running", running.length, running.length ? cardList(running, shown, many) : el("p", "calm", "No soldier is running.")));
    if (rest.length) {
      const fold = el("details", "rest");
      fold.dataset.key = "rest";
      fold.open = shown.open.has("rest");
      fold.append(el("summary", "", "landed, struck and finished scouts"), cardList(rest, shown, many));
      parts.push(section("rest", "The rest", rest.length, fold));
    }
    const panels = el("div");
    const seen = new Set();
    for (const p of doc.projects) {
      const c = projectPanel(p);
      seen.add(p.project_path);
      const cmd = p.commanders.map((x) => `${x.harness} (${x.pane})`).join(", ") || "none registered";
      const n = p.tasks.length;
      c.meta.replaceChildren(el("b", "", `${n} task${n === 1 ? "" : "s"}`), document.createTextNode(` · commanders: ${cmd} · live awaits: ${p.awaits.length} · wakes waiting: ${p.wakes.length}`));
      if (p.error) c.meta.append(el("span", "error", ` · ${p.error}`));
      panels.append(c.panel);
    }
    for (const key of boxes.keys()) if (!seen.has(key)) boxes.delete(key);
    parts.push(section("project-list", many ? "Projects" : "Project", undefined, panels));
    main.replaceChildren(...parts);
    // A card is new at each render; a project's box is the same element, moved back in.
    if (focused) [...main.querySelectorAll(".card")].find((c) => c.dataset.key === focused)?.focus();
    else if (active?.isConnected && active !== document.body && document.activeElement !== active) active.focus();
  }

  async function refreshReviews() {
    try {
      const doc = await getJson("/api/sessions");
      const open = doc.sessions.filter((s) => !s.ended);
      $("reviews").hidden = open.length === 0;
      $("review-list").replaceChildren(
        ...open.map((s) => {
          const li = el("li");
          const a = el("a", "", s.file);
          a.href = `/s/${encodeURIComponent(s.session)}`;
          li.append(a, document.createTextNode(` · ${s.project_path}${s.unread ? ` · ${s.unread} unread` : ""}`));
          return li;
        }),
      );
    } catch (_) {
      // the board itself says when the forum is unreachable
    }
  }

  async function refresh() {
    try {
      render(await getJson("/api/board"));
      notice("");
    } catch (e) {
      notice(e.message, true);
    }
  }
  follow({ open: () => (refresh(), refreshReviews()), board: refresh, session: refreshReviews });
}

if (document.body.dataset.page === "board") boardPage();

// The board page (FOR-09, FOR-13), loaded after forum.js and using its helpers ($, el, notice, getJson, postJson,
// sender, follow). The page a general keeps open: what needs a person first, then the counts, then the
// running work, then the rest folded away. Every server text goes in with textContent (FOR-10).
// biome-ignore lint/suspicious/noRedundantUseStrict: a classic <script defer>, not a module, so the directive does apply
"use strict";

/* global $, el, notice, getJson, postJson, sender, follow, costText, totalText, cardTools */

/** Which of FOR-14's actions a card offers; each runs the command itself on the server. */
function offered(t, state) {
  if (state === "blocked" && t.question) return [{ action: "decide" }];
  if (state === "interrupted")
    return [
      { action: "resume", label: "Resume" },
      { action: "redispatch", label: "Redispatch" },
    ];
  if (state === "unconfirmed") return [{ action: "resume", label: "Resume" }];
  // A failed soldier never got its prompt: nothing to resume, only a re-run in a fresh camp.
  if (state === "failed") return [{ action: "redispatch", label: "Redispatch" }];
  if (state === "done" && t.kind === "mission") return [{ action: "land", label: "Land" }];
  return [];
}

const BUSY = { land: "Landing…", decide: "Sending…", resume: "Resuming…", redispatch: "Redispatching…" };

/**
 * Each card's actions live across re-renders (one element per task, moved into each new card), so a half-written
 * answer, a running action's busy button and its result survive the live refreshes a land itself causes.
 */
function actionBoxes(log, refresh) {
  const boxes = new Map();

  async function run(c, action, body, button) {
    if (c.busy) return;
    c.busy = true;
    // Disabling the focused field drops its focus: given back after, so a keyboard user stays in place.
    const had = document.activeElement;
    const label = button.textContent;
    for (const b of c.box.querySelectorAll("button, input")) b.disabled = true;
    button.textContent = BUSY[action];
    c.box.setAttribute("aria-busy", "true");
    c.result.textContent = "";
    const r = await postJson(`/api/tasks/${action}`, { project_path: c.project, task_id: c.id, ...body }, 200);
    const out = r.ok ? r.body : { ok: false, output: "", error: r.error };
    c.busy = false;
    c.box.removeAttribute("aria-busy");
    for (const b of c.box.querySelectorAll("button, input")) b.disabled = false;
    button.textContent = label;
    if (had?.isConnected && c.box.contains(had) && document.activeElement !== had) had.focus();
    c.result.className = `result ${out.ok ? "good" : "error"}`;
    c.result.textContent = [out.output, out.error].filter(Boolean).join("\n") || (out.ok ? "done" : "refused");
    if (out.ok && action === "decide") c.input.value = "";
    log(`${action} ${c.id.slice(0, 8)}: ${out.ok ? "done" : "refused"}`, c.result.textContent, out.ok);
    // The renders during the action left its buttons as they were: the board as it is now.
    c.sig = "";
    refresh();
  }

  function decideForm(c, t) {
    const form = el("form", "answer");
    c.input = c.input || el("input");
    c.input.type = "text";
    c.input.setAttribute("aria-label", `answer to: ${t.question}`);
    c.input.placeholder = "Your answer";
    const send = el("button", "", "Answer");
    send.type = "submit";
    form.append(c.input, send);
    form.addEventListener("submit", (ev) => {
      ev.preventDefault();
      if (c.input.value.trim() === "") {
        c.result.className = "result error";
        c.result.textContent = "write an answer first";
        return;
      }
      run(c, "decide", { answer: c.input.value }, send);
    });
    const options = t.decision?.options || [];
    const parts = [form];
    if (options.length) {
      const row = el("div", "options");
      for (const o of options) {
        const b = el("button", "option", o);
        b.type = "button";
        b.addEventListener("click", () => run(c, "decide", { answer: o }, b));
        row.append(b);
      }
      parts.push(row);
    }
    return parts;
  }

  /** The card's actions element, filled for what the task offers now (left alone while an action runs). */
  function boxFor(t, p, state) {
    const key = `${p.project_path}\n${t.id}`;
    let c = boxes.get(key);
    if (!c) {
      c = { box: el("div", "actions"), result: el("p", "result"), project: p.project_path, id: t.id, busy: false, sig: "" };
      boxes.set(key, c);
    }
    c.seen = true;
    const offer = offered(t, state);
    const sig = JSON.stringify([offer, t.question, t.decision?.options]);
    if (c.busy || sig === c.sig) return c.box;
    c.sig = sig;
    const parts = [];
    for (const o of offer) {
      if (o.action === "decide") parts.push(...decideForm(c, t));
      else {
        const b = el("button", `act ${o.action}`, o.label);
        b.type = "button";
        b.dataset.action = o.action;
        b.addEventListener("click", () => run(c, o.action, {}, b));
        parts.push(b);
      }
    }
    // A card with nothing to offer and no result keeps an empty box (hidden by the stylesheet).
    c.box.replaceChildren(...parts, ...(parts.length || c.result.textContent ? [c.result] : []));
    return c.box;
  }

  return {
    boxFor,
    /** Before a render: after it, a task gone from the board loses its box unless its action still runs. */
    mark: () => {
      for (const c of boxes.values()) c.seen = false;
    },
    sweep: () => {
      for (const [k, c] of boxes) if (!c.seen && !c.busy) boxes.delete(k);
    },
  };
}

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
function taskCard(item, shown, manyProjects, actions) {
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
  if (t.usage) li.append(el("p", `cost${t.usage.unknown ? " unknown" : ""}`, costText(t.usage)));
  // FOR-14's actions, then the card's own tools (its screen, a scout's report).
  li.append(actions.boxFor(t, p, state));
  if (actions.tools) li.append(actions.tools.boxFor(t, p, state));
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

function cardList(items, shown, many, actions) {
  const ul = el("ul", "cards");
  ul.append(...items.map((i) => taskCard(i, shown, many, actions)));
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

// --- the board's conversation with each project's commander (FOR-09, FOR-13) ---------------------------

const NOBODY = "No commander is listening: a message waits in the inbox until a commander reads it (vx forum inbox).";
const SENT_UNHEARD = "sent — waiting in the inbox, no commander is listening";

/**
 * The lines as the review page shows them, oldest first, the newest at the bottom; text in by textContent. Each
 * render moves the panel, which loses a list's scroll: it is put back where the reader left it, or at the newest.
 */
function talkLines(list, p) {
  // Read while the old render still shows it (and not while a restore is still due).
  if (list.isConnected && !list.hidden && !list.restoring) {
    list.stick = list.scrollTop + list.clientHeight >= list.scrollHeight - 4;
    list.top = list.scrollTop;
  }
  const lines = p.talk || [];
  const sig = JSON.stringify([p.talk_total, lines.map((m) => m.uid)]);
  if (list.dataset.sig !== sig) {
    list.dataset.sig = sig;
    const items = lines.map((m) => {
      const li = el("li", m.from);
      li.dataset.uid = m.uid;
      li.append(el("span", "who", `${m.from === "general" ? "you" : "commander"} · ${new Date(m.at).toLocaleString()}`), el("span", "text", m.text));
      return li;
    });
    const earlier = (p.talk_total || 0) - lines.length;
    if (earlier > 0) items.unshift(el("li", "earlier", `${earlier} earlier message${earlier === 1 ? "" : "s"} not shown`));
    list.replaceChildren(...items);
    list.hidden = items.length === 0;
    list.stick = true; // a new line: show it
  }
  // After the render has put the panel back in the page: a detached list cannot scroll.
  list.restoring = true;
  requestAnimationFrame(() => {
    list.restoring = false;
    list.scrollTop = list.stick !== false ? list.scrollHeight : list.top || 0;
  });
}

/** Who hears the box (FOR-09's rule, decided by the server from real state). */
function listenNote(note, p) {
  const l = p.listening || { listening: false };
  note.hidden = l.listening;
  note.textContent = l.listening ? "" : NOBODY;
}

/** The box's POST: a 201 says whether anyone was listening when it was written. */
async function sendOnBoard(project, text) {
  const r = await postJson("/api/projects/messages", { project_path: project, text });
  if (r.ok && r.body.listening === false) r.sent = SENT_UNHEARD;
  return r;
}

function boardPage() {
  const boxes = new Map();
  const actions = actionBoxes(
    (title, text, ok) => {
      const li = el("li", ok ? "good" : "error");
      li.append(el("b", "", title), el("pre", "", text));
      const list = $("action-log");
      list.prepend(li);
      while (list.children.length > 5) list.lastChild.remove();
      $("actions-done").hidden = false;
    },
    () => refresh(),
  );
  actions.tools = cardTools();

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
    sender(form, textarea, button, status, (text) => sendOnBoard(p.project_path, text));
    const talk = el("ol", "transcript talk-lines");
    talk.setAttribute("aria-label", `conversation with the commander of ${p.project_path}`);
    talk.setAttribute("aria-live", "polite");
    talk.hidden = true;
    const note = el("p", "unheard-note");
    note.setAttribute("role", "status");
    panel.append(el("h3", "", p.project_path), meta, talk, note, form);
    c = { panel, meta, talk, note };
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
    actions.mark();
    actions.tools.mark();
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

    const needs = attention.length ? cardList(attention, shown, many, actions) : el("p", "calm", "Nothing needs you: no soldier is blocked, failed or ready to land.");
    const parts = [section("attention", "Needs you", attention.length, needs), countsStrip(items, wakes)];
    parts.push(section("running", "Running", running.length, running.length ? cardList(running, shown, many, actions) : el("p", "calm", "No soldier is running.")));
    if (rest.length) {
      const fold = el("details", "rest");
      fold.dataset.key = "rest";
      fold.open = shown.open.has("rest");
      fold.append(el("summary", "", "landed, struck and finished scouts"), cardList(rest, shown, many, actions));
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
      if (p.usage_total) c.meta.append(el("span", "cost-total", ` · ${totalText(p.usage_total)}`));
      if (p.error) c.meta.append(el("span", "error", ` · ${p.error}`));
      talkLines(c.talk, p);
      listenNote(c.note, p);
      panels.append(c.panel);
    }
    for (const key of boxes.keys()) if (!seen.has(key)) boxes.delete(key);
    if (many && doc.usage_total) panels.prepend(el("p", "meta cost-total all", `All projects · ${totalText(doc.usage_total)}`));
    parts.push(section("project-list", many ? "Projects" : "Project", undefined, panels));
    main.replaceChildren(...parts);
    actions.sweep();
    actions.tools.sweep();
    // A card is new at each render; a project's box and a card's actions are the same elements, moved back in.
    if (active?.closest?.(".actions, .tools") && active.isConnected) active.focus();
    else if (focused) [...main.querySelectorAll(".card")].find((c) => c.dataset.key === focused)?.focus();
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

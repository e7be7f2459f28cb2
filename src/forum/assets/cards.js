// A board card's own parts (FOR-13, FOR-15), loaded after forum.js and before board.js: its cost (TSK-13..15, the
// harness's records or why there are none), its screen on demand and a scout's "Review report". Every server text
// goes in with textContent (FOR-10).
// biome-ignore lint/suspicious/noRedundantUseStrict: a classic <script defer>, not a module, so the directive does apply
"use strict";

/* global el, getJson, postJson */
/* exported costText, totalText, cardTools */

/** TSK-15's counts: 1234, 1.2k, 12k, 1.23M. */
function tokens(n) {
  if (n < 1000) return String(n);
  if (n < 1000000) return `${(n / 1000).toFixed(n < 10000 ? 1 : 0)}k`;
  return `${(n / 1000000).toFixed(n < 10000000 ? 2 : 1)}M`;
}

function spentText(u) {
  const parts = [`${tokens(u.input_tokens)} in`, `${tokens(u.output_tokens)} out`];
  if (u.cache_read_tokens) parts.push(`${tokens(u.cache_read_tokens)} cache read`);
  if (u.cache_write_tokens) parts.push(`${tokens(u.cache_write_tokens)} cache write`);
  if (u.cost_usd !== undefined) parts.push(`$${u.cost_usd.toFixed(2)}`);
  return parts.join(", ");
}

/** A task's usage (TSK-13): read from its harness's records, or why there is none; never a made-up 0. */
// biome-ignore lint/correctness/noUnusedVariables: board.js, loaded after this file, calls it
function costText(u) {
  return u.unknown ? `cost unknown: ${u.unknown}` : `cost: ${spentText(u)}`;
}

/** TSK-14's total: the known tasks summed, and how many are unknown. */
// biome-ignore lint/correctness/noUnusedVariables: board.js, loaded after this file, calls it
function totalText(x) {
  const unknown = x.tasks_unknown ? `, ${x.tasks_unknown} unknown` : "";
  if (!x.tasks_known) return `cost unknown for ${x.tasks_unknown} task${x.tasks_unknown === 1 ? "" : "s"}`;
  return `cost: ${spentText(x)} (${x.tasks_known} task${x.tasks_known === 1 ? "" : "s"}${unknown})`;
}

// States whose soldier has a pane worth looking at (FOR-15).
const SCREEN_STATES = new Set(["running", "pending", "blocked", "unconfirmed"]);

/**
 * A card's own tools, kept across re-renders like its actions: "Show screen" (FOR-15: the pane's bottom, asked for
 * every poll_ms while open, never once closed) and a scout's "Review report" (FOR-14's review: to its review page).
 */
// biome-ignore lint/correctness/noUnusedVariables: board.js, loaded after this file, calls it
function cardTools() {
  const tools = new Map();

  function ask(c) {
    const gen = c.gen;
    const q = `project_path=${encodeURIComponent(c.project)}&task_id=${encodeURIComponent(c.id)}`;
    getJson(`/api/tasks/screen?${q}`).then(
      (doc) => {
        if (gen !== c.gen) return;
        c.pre.hidden = doc.state !== "live";
        if (doc.state === "live") c.pre.textContent = doc.text;
        c.note.textContent = doc.state === "live" ? "" : doc.text;
        c.timer = setTimeout(() => ask(c), doc.poll_ms || 2000);
      },
      (e) => {
        if (gen !== c.gen) return;
        c.note.textContent = e.message;
        c.timer = setTimeout(() => ask(c), 2000);
      },
    );
  }

  function show(c, open) {
    c.open = open;
    c.gen++;
    clearTimeout(c.timer);
    c.screen.setAttribute("aria-expanded", String(open));
    c.screen.textContent = open ? "Hide screen" : "Show screen";
    c.view.hidden = !open;
    if (open) {
      c.note.textContent = "reading the pane…";
      ask(c);
    }
  }

  async function review(c) {
    c.review.disabled = true;
    c.review.textContent = "Opening…";
    const r = await postJson("/api/tasks/review", { project_path: c.project, task_id: c.id }, 200);
    if (r.ok) {
      location.assign(r.body.url);
      return;
    }
    c.review.disabled = false;
    c.review.textContent = "Review report";
    c.failed.textContent = r.error;
    if (!c.failed.isConnected) c.box.append(c.failed);
  }

  function toolsOf(key, t, p) {
    let c = tools.get(key);
    if (c) return c;
    c = { box: el("div", "tools"), project: p.project_path, id: t.id, open: false, gen: 0, timer: 0 };
    c.screen = el("button", "tool screen-toggle", "Show screen");
    c.screen.type = "button";
    c.screen.setAttribute("aria-expanded", "false");
    c.screen.addEventListener("click", () => show(c, !c.open));
    c.view = el("div", "screen");
    c.view.hidden = true;
    c.note = el("p", "screen-note");
    c.pre = el("pre", "screen-text");
    c.pre.hidden = true;
    c.pre.setAttribute("aria-label", "the soldier's screen");
    c.view.append(c.note, c.pre);
    c.review = el("button", "tool review", "Review report");
    c.review.type = "button";
    c.review.addEventListener("click", () => review(c));
    c.failed = el("p", "tool-error");
    tools.set(key, c);
    return c;
  }

  /** The card's tools element for what the task offers now; a screen no longer offered stops being asked for. */
  function boxFor(t, p, state) {
    const c = toolsOf(`${p.project_path}\n${t.id}`, t, p);
    c.seen = true;
    // A soldier on another machine has no pane here to read (FOR-15): no button that could only say so.
    const screen = SCREEN_STATES.has(state) && !t.machine;
    if (!screen && c.open) show(c, false);
    const parts = [];
    if (screen) parts.push(c.screen);
    if (t.kind === "scout" && t.report_path) parts.push(c.review);
    if (screen) parts.push(c.view);
    if (c.failed.textContent) parts.push(c.failed);
    if (c.box.children.length !== parts.length || parts.some((x, i) => c.box.children[i] !== x)) c.box.replaceChildren(...parts);
    return c.box;
  }

  return {
    boxFor,
    mark: () => {
      for (const c of tools.values()) c.seen = false;
    },
    /** A card gone from the board stops its screen. */
    sweep: () => {
      for (const [k, c] of tools)
        if (!c.seen) {
          show(c, false);
          tools.delete(k);
        }
    },
  };
}

// vexillum wake extension for Pi, written by "vx init" ("vx doctor" reports hand edits).
// Pi has no Stop hook, so this runs the same "vx sentinel await" the Claude Code hook runs, as a
// child of Pi, and hands each wake it prints to the model, once Pi is idle.
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { accessSync, constants, realpathSync, statSync } from "node:fs";
import { delimiter, join, resolve, sep } from "node:path";

type Message = { role?: unknown; content?: unknown; stopReason?: unknown };
type Ctx = {
  cwd: string;
  hasUI?: boolean;
  ui?: { notify(message: string, level?: "info" | "warning" | "error"): void };
  isIdle(): boolean;
};
type Pi = {
  on(event: "session_start", handler: (event: unknown, ctx: Ctx) => unknown): void;
  on(event: "session_shutdown", handler: (event: unknown, ctx: Ctx) => unknown): void;
  on(event: "session_tree", handler: (event: unknown, ctx: Ctx) => unknown): void;
  on(event: "agent_end", handler: (event: unknown, ctx: Ctx) => unknown): void;
  on(event: "message_start", handler: (event: { message: Message }, ctx: Ctx) => unknown): void;
  on(event: "message_end", handler: (event: { message: Message }, ctx: Ctx) => unknown): void;
  on(event: "context", handler: (event: { messages: Message[] }, ctx: Ctx) => { messages: Message[] } | undefined): void;
  sendUserMessage(text: string, options: { deliverAs: "followUp" }): void;
};

import { NOT_FOUND, __WAKE_DELIVERED__, __WAKE_RELISTEN_MS__, __WAKE_RETRY_MS__, findVx, gitToplevel, isCamp, scaled, spawnAwait, stopAwait } from "./wake-helpers.ts"; // vx writes the helpers here

// waiting: not handed to Pi yet; sent: handed over, its user message not seen; entered: its user
// message entered a turn, no answer yet; failed: the turn ended without an answer (provider error).
type Wake = { text: string; state: "waiting" | "sent" | "entered" | "failed"; since: number };
// owner: the live instance; kick: its pump; resent: texts sent again after a failed turn, whose
// older copies the context handler hides so the model reads each wake once.
type Shared = { wakes: Wake[]; owner: object | undefined; kick: (() => void) | undefined; resent: Set<string> };

// One queue per Pi process: Pi evaluates this module afresh for every new instance but keeps the
// process, and so globalThis. The await already consumed these wakes; nothing else holds them.
const holder = globalThis as { __vexillumWake2?: Shared };
const shared: Shared = (holder.__vexillumWake2 ??= { wakes: [], owner: undefined, kick: undefined, resent: new Set() });

// The text of a user message as Pi compares it (its text parts joined).
function userText(message: Message | undefined): string | undefined {
  if (message?.role !== "user") return undefined;
  if (typeof message.content === "string") return message.content;
  if (!Array.isArray(message.content)) return undefined;
  let text = "";
  for (const part of message.content as { type?: unknown; text?: unknown }[]) {
    if (part.type === "text" && typeof part.text === "string") text += part.text;
  }
  return text;
}

export default function vexillumWake(pi: Pi): void {
  const retryMs = scaled(__WAKE_RETRY_MS__);
  const giveUpMs = scaled(__WAKE_RELISTEN_MS__);
  const token = {};
  let ctx: Ctx | undefined;
  let live = false;
  let cwd = process.cwd();
  let child: ChildProcess | undefined;
  let tick: ReturnType<typeof setInterval> | undefined;
  let warned = false;

  // A shut-down instance never touches pi or ctx again: an old pi can still start a turn in a
  // session nobody sees.
  const active = (): boolean => live && shared.owner === token && ctx !== undefined;

  function idle(): boolean {
    try {
      return ctx !== undefined && ctx.isIdle();
    } catch {
      return false; // a stale ctx throws: this instance is done
    }
  }

  // Hands the oldest wake to Pi, only while Pi is idle: a follow-up queued mid-run is lost when
  // that run fails (it stays queued) or the user presses Escape (it moves to the editor), and an
  // idle send starts its turn at once, exactly when a follow-up would have run.
  function pump(): void {
    if (!active()) return;
    const head = shared.wakes[0];
    if (head === undefined) return;
    const now = Date.now();
    // sent but never seen: refused before the turn ("No API key found"); failed: the model request
    // failed. Either way, send again once the retry period passed.
    if ((head.state === "sent" || head.state === "failed") && now - head.since >= retryMs && idle()) {
      if (head.state === "failed") shared.resent.add(head.text);
      head.state = "waiting";
    }
    if (head.state !== "waiting" || !idle()) return;
    head.state = "sent";
    head.since = now;
    try {
      pi.sendUserMessage(head.text, { deliverAs: "followUp" });
    } catch {
      head.state = "waiting";
    }
  }

  function accept(): void {
    shared.wakes.shift();
    setTimeout(pump, 250);
  }

  function startTick(): void {
    if (tick !== undefined) return;
    tick = setInterval(pump, Math.max(retryMs / 5, 20));
    tick.unref();
  }

  function onWake(text: string): void {
    shared.wakes.push({ text, state: "waiting", since: Date.now() });
    // An await that exits after this instance shut down still lands here; the live one sends it.
    if (active()) pump();
    else shared.kick?.();
  }

  function startAwait(): void {
    if (!active() || child !== undefined) return;
    const vx = findVx();
    if (vx === undefined) {
      if (!warned && ctx?.hasUI) ctx.ui?.notify(NOT_FOUND, "warning");
      warned = true;
      return;
    }
    const proc = spawnAwait(vx, cwd, (code, text, ranMs) => {
      if (child === proc) child = undefined;
      if (code === __WAKE_DELIVERED__ && text !== "") onWake(text);
      // A give-up after 55 minutes listens again; a quick exit 0 means there is nothing to wait
      // for here (no herdr pane, HOME unset, ...): quiet until the next session start.
      if (active() && (code === __WAKE_DELIVERED__ || ranMs >= giveUpMs)) startAwait();
    });
    child = proc;
  }

  pi.on("session_start", (_event, c) => {
    ctx = c;
    live = true;
    shared.owner = token;
    shared.kick = pump;
    cwd = c.cwd || process.cwd();
    startTick();
    pump(); // wakes the previous instance left
    void gitToplevel(cwd).then((top) => {
      if (active() && top !== undefined && !isCamp(top)) startAwait();
    });
  });

  pi.on("message_start", (event) => {
    if (!active()) return;
    const head = shared.wakes[0];
    // Also from "waiting": a copy Pi still held, or the text the user sent from the editor.
    if (head !== undefined && head.state !== "entered" && userText(event.message) === head.text) {
      head.state = "entered";
      head.since = Date.now();
    }
  });

  pi.on("message_end", (event) => {
    if (!active()) return;
    const head = shared.wakes[0];
    if (head === undefined || event.message.role !== "assistant") return;
    // Answered (stopped, tool use, length, or interrupted by the user on purpose); Pi's own retry
    // after a 5xx that succeeds counts too.
    if ((head.state === "entered" || head.state === "failed") && event.message.stopReason !== "error") accept();
  });

  pi.on("agent_end", () => {
    if (!active()) return;
    const head = shared.wakes[0];
    // Each failed run (Pi's own retries included) restarts the retry period.
    if (head !== undefined && (head.state === "entered" || head.state === "failed")) {
      head.state = "failed";
      head.since = Date.now();
    }
    setTimeout(pump, 250);
  });

  // After a resend Pi keeps the first copy too: hide a copy that the same text follows (error
  // replies aside), so each request carries the wake once.
  pi.on("context", (event) => {
    if (!active() || shared.resent.size === 0) return undefined;
    const msgs = event.messages;
    const keep = msgs.filter((m, i) => {
      const text = userText(m);
      if (text === undefined || !shared.resent.has(text)) return true;
      for (let j = i + 1; j < msgs.length; j++) {
        const next = msgs[j];
        if (next?.role === "assistant" && next.stopReason === "error") continue;
        return userText(next) !== text;
      }
      return true;
    });
    return keep.length === msgs.length ? undefined : { messages: keep };
  });

  // Moving elsewhere in the session tree can leave a wake's message off the branch.
  pi.on("session_tree", () => {
    if (!active()) return;
    for (const w of shared.wakes) if (w.state !== "sent") w.state = "waiting";
  });

  pi.on("session_shutdown", () => {
    live = false;
    if (shared.owner === token) {
      shared.owner = undefined;
      shared.kick = undefined;
    }
    if (tick !== undefined) clearInterval(tick);
    tick = undefined;
    // Nothing held is accepted yet: the next instance sends it again.
    for (const w of shared.wakes) {
      if (w.state === "entered" || w.state === "failed") shared.resent.add(w.text);
      w.state = "waiting";
    }
    const proc = child;
    child = undefined;
    stopAwait(proc);
  });
}

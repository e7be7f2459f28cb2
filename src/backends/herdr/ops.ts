/** herdr calls with its known failure modes handled (HRD-05..07, SEN-06): busy panes, false stalls, tabs already gone. */
import { herdrCode } from "./types";
import type { AgentInfo } from "../agents";
import type { Env } from "../../state/paths";
import { type Clock, COUNTS, scaled } from "../../time";
import type { Exec } from "../../exec";
import { terminalText } from "../../terminal-text";
import { fallbackName } from "../soldier-name";
import { RESEND_POLLS } from "../readiness";
import { type PasteWatch, enterWhileUnsent } from "../unsent";
import { type HerdrClient, createHerdrClient, type PromptOptions } from "./client";
import type { PromptOutcome } from "../types";

export type HerdrOps = { herdr: HerdrClient; clock: Clock; env: Env };

/** The one place a herdr client is made. */
export function herdrOps(deps: { exec: Exec; clock: Clock; env: Env }): HerdrOps {
  return { herdr: createHerdrClient({ exec: deps.exec, env: deps.env }), clock: deps.clock, env: deps.env };
}

const GONE = new Set(["agent_not_found", "agent_not_running"]);

/** True for the codes that mean the agent (or its pane) is gone (HRD-05). */
export function isGone(err: unknown): boolean {
  return GONE.has(herdrCode(err) ?? "");
}

type StartRequest = {
  /** The candidate name (agentName); also the tab label, so it is kept when free. */
  name: string;
  kind: string;
  pane: string;
  args: string[];
  /** Source of the fallback name's suffix. */
  taskId: string;
};

/**
 * HRD-05/06; returns the name used. `agent_pane_busy` is retried while the shell comes up, `agent_name_taken` takes the fallback
 * once, `agent_not_ready` is started (readiness answers its screen), `timeout` and `agent_name_not_found` take the name back.
 */
export async function startAgent(ops: HerdrOps, req: StartRequest): Promise<string> {
  let name = req.name;
  let renamed = false;
  for (;;) {
    try {
      await startThroughBusy(ops, { ...req, name });
      return name;
    } catch (err) {
      const code = herdrCode(err);
      if (code === "agent_name_taken" && !renamed) {
        name = fallbackName(req.name, req.taskId);
        renamed = true;
        continue;
      }
      if (code === "agent_not_ready") return name;
      if ((code === "timeout" || code === "agent_name_not_found") && (await adopt(ops, { ...req, name }))) return name;
      throw err;
    }
  }
}

/** herdr drops the name when a start outlasts its wait or it loses sight of the harness, which still runs in the pane. */
async function adopt(ops: HerdrOps, req: StartRequest): Promise<boolean> {
  let agent: AgentInfo;
  try {
    agent = await ops.herdr.agentGet(req.pane);
  } catch {
    return false;
  }
  if (agent.agent !== req.kind) return false;
  if (agent.name !== req.name) await ops.herdr.agentRename(req.pane, req.name);
  return true;
}

async function startThroughBusy(ops: HerdrOps, req: StartRequest): Promise<void> {
  for (let retry = 0; ; retry++) {
    try {
      await ops.herdr.agentStart(req.name, req.kind, req.pane, req.args);
      return;
    } catch (err) {
      if (herdrCode(err) !== "agent_pane_busy" || retry >= COUNTS.paneBusyRetries) throw err;
      await ops.clock.sleep(scaled("paneBusyStep", ops.env));
    }
  }
}

function moved(before: AgentInfo, now: AgentInfo): boolean {
  return now.agent_status === "working" || now.state_change_seq > before.state_change_seq;
}

/** How a prompt goes in: the probe's wait, and the harness's sign that its input box holds text (`Harness.unsent`). */
type DeliveryOptions = PromptOptions & { unsent?: RegExp };

function herdrWatch(ops: HerdrOps, target: string, unsent: RegExp): PasteWatch {
  return {
    term: {
      capture: async () => (await readVisible(ops, target)) ?? "",
      sendKeys: (_pane, keys) => ops.herdr.agentSendKeys(target, keys),
    },
    pane: target,
    clock: ops.clock,
    env: ops.env,
    pollMs: scaled("trustPoll", ops.env) * 2 * RESEND_POLLS,
    holds: (screen) => unsent.test(screen),
  };
}

/** A piece of the text that shows wherever the harness drew it: its first line's start. */
function markOf(text: string): string {
  return (
    terminalText(text)
      .split("\n")
      .find((l) => l.trim() !== "") ?? ""
  )
    .trim()
    .slice(0, 40);
}

/** How many times the pane's transcript shows `mark`; undefined when it cannot be read (or there is no mark). */
async function timesShown(ops: HerdrOps, target: string, mark: string): Promise<number | undefined> {
  if (!mark) return undefined;
  const transcript = await readTranscript(ops, target).catch(() => undefined);
  return transcript === undefined ? undefined : transcript.split(mark).length - 1;
}

/**
 * At most once: `agent_prompt_stalled` means only no state change within 5 s (herdr #2690, #2682), so a stall is retried only
 * with no sign of the prompt (not working, no state change, its text shown no more often); else the wait goes on.
 */
export async function promptAgent(ops: HerdrOps, target: string, text: string, opts: DeliveryOptions = {}): Promise<PromptOutcome> {
  const wait = opts.waitTimeoutMs !== undefined;
  const mark = markOf(text);
  let before: AgentInfo;
  let shownBefore: number | undefined;
  let screenBefore = "";
  try {
    before = await ops.herdr.agentGet(target);
    shownBefore = await timesShown(ops, target, mark);
    if (opts.unsent) screenBefore = (await readVisible(ops, target)) ?? "";
  } catch (err) {
    return goneOrThrow(err);
  }
  for (let retry = 0; ; retry++) {
    const sentAt = ops.clock.monotonic();
    try {
      const agent = await ops.herdr.agentPrompt(target, text, { waitTimeoutMs: opts.waitTimeoutMs });
      return wait ? { kind: "settled", agent } : { kind: "sent", agent };
    } catch (err) {
      const code = herdrCode(err);
      if (code !== undefined && GONE.has(code)) return { kind: "gone", code };
      if (code === "agent_blocked") return { kind: "blocked" };
      if (code === "timeout" && wait) {
        // A probe shorter than herdr's 5 s for a state change ends here, its Enter maybe lost.
        if (opts.unsent) await enterWhileUnsent(herdrWatch(ops, target, opts.unsent), screenBefore, text);
        return { kind: "timeout" };
      }
      if (code !== "agent_prompt_stalled") throw err;
      let now: AgentInfo;
      let shown: number | undefined;
      try {
        now = await ops.herdr.agentGet(target);
        shown = await timesShown(ops, target, mark);
      } catch (getErr) {
        return goneOrThrow(getErr);
      }
      if (moved(before, now) || (shown !== undefined && shown > (shownBefore ?? 0))) {
        // Its Enter may be lost in the box (Gemini CLI).
        if (opts.unsent) await enterWhileUnsent(herdrWatch(ops, target, opts.unsent), screenBefore, text);
        if (!wait) return { kind: "sent", agent: now };
        return waitRest(ops, target, sentAt + opts.waitTimeoutMs! - ops.clock.monotonic());
      }
      if (retry >= COUNTS.promptStalledRetries) throw err;
      await ops.clock.sleep(scaled("promptStalledStep", ops.env));
    }
  }
}

function goneOrThrow(err: unknown): PromptOutcome {
  const code = herdrCode(err);
  if (code !== undefined && GONE.has(code)) return { kind: "gone", code };
  throw err;
}

async function waitRest(ops: HerdrOps, target: string, remainingMs: number): Promise<PromptOutcome> {
  if (remainingMs <= 0) return { kind: "timeout" };
  try {
    return { kind: "settled", agent: await ops.herdr.agentWait(target, remainingMs) };
  } catch (err) {
    if (herdrCode(err) === "timeout") return { kind: "timeout" };
    return goneOrThrow(err);
  }
}

async function readOrUndefined(read: Promise<string>): Promise<string | undefined> {
  try {
    return await read;
  } catch (err) {
    // HRD-05: a busy alternate-screen agent cannot be scrolled, which counts as unreadable.
    if (herdrCode(err) === "agent_not_idle" || isGone(err)) return undefined;
    throw err;
  }
}

/** HRD-07 transcript (`--source recent-unwrapped --lines 500`); undefined when unreadable or gone. */
export function readTranscript(ops: HerdrOps, target: string): Promise<string | undefined> {
  return readOrUndefined(ops.herdr.agentRead(target, "recent-unwrapped", COUNTS.transcriptLines));
}

/** HRD-07 rendered screen for dialogs (`--source visible`, whole view); undefined when unreadable or gone. */
export function readVisible(ops: HerdrOps, target: string): Promise<string | undefined> {
  return readOrUndefined(ops.herdr.agentRead(target, "visible"));
}

async function closeOr(close: Promise<void>, goneCode: string): Promise<boolean> {
  try {
    await close;
    return true;
  } catch (err) {
    // A stopped or stopping server takes every pane with it (herdr.md section 3.1): closed too.
    const code = herdrCode(err);
    if (code === goneCode || code === "server_not_running" || code === "server_unavailable") return false;
    throw err;
  }
}

/** Closes a tab; one already gone counts as closed (CMD-STRIKE-03). True when herdr closed it now. */
export function closeTab(ops: HerdrOps, tab: string): Promise<boolean> {
  return closeOr(ops.herdr.tabClose(tab), "tab_not_found");
}

export function closePane(ops: HerdrOps, pane: string): Promise<boolean> {
  return closeOr(ops.herdr.paneClose(pane), "pane_not_found");
}

type AgentRef = { herdr_agent_name?: string; herdr_pane_id?: string; harness?: string };

/** One pass's agent list by name and by pane and kind, built once so a lookup does not scan the list (SEN-06 at scale). */
export type AgentIndex = { byName: Map<string, AgentInfo>; byPane: Map<string, Map<string, AgentInfo>> };

/** The first listed agent wins each key, as a scan of the list would find it. */
export function indexAgents(agents: readonly AgentInfo[]): AgentIndex {
  const byName = new Map<string, AgentInfo>();
  const byPane = new Map<string, Map<string, AgentInfo>>();
  for (const a of agents) {
    if (a.name && !byName.has(a.name)) byName.set(a.name, a);
    if (!a.agent) continue;
    const kinds = byPane.get(a.pane_id) ?? new Map<string, AgentInfo>();
    byPane.set(a.pane_id, kinds);
    if (!kinds.has(a.agent)) kinds.set(a.agent, a);
  }
  return { byName, byPane };
}

/** SEN-06: by name, else the harness's kind in the recorded pane (names are lost when herdr restarts); undefined is not found. */
export function findAgent(index: AgentIndex, task: AgentRef): AgentInfo | undefined {
  if (task.herdr_agent_name) {
    const byName = index.byName.get(task.herdr_agent_name);
    if (byName) return byName;
  }
  if (!task.herdr_pane_id || !task.harness) return undefined;
  return index.byPane.get(task.herdr_pane_id)?.get(task.harness);
}

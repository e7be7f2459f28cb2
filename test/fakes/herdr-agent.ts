// The `herdr agent ...` commands of the fake: the facade vx drives.
import {
  ApiError, UsageError, checkServer, failureMessage, optInt, optList, optStr,
  type CommandDef, type Ctx, type Outcome, type Parsed,
} from "./herdr-cli.ts";
import { AGENT_KINDS, AGENT_NAME_RE, agentInfo, kindExecutable, readPaneText } from "./herdr-info.ts";
import {
  AGENT_STATUSES, appendLine, findAgentPane, findPane, iso, newAgent, runReaction, setStatus, withState,
  type AgentStatus, type FakeState, type PaneRec,
} from "./herdr-state.ts";
import { checkKeys, readOptions } from "./herdr-topo.ts";

const DEFAULT_UNTIL: AgentStatus[] = ["idle", "done", "blocked"];
const POLL_MS = 50;

function resolveTarget(s: FakeState, target: string): PaneRec {
  const panes = findAgentPane(s, target);
  if (!panes.length) throw new ApiError("agent_not_found", `agent target ${target} not found`);
  if (panes.length > 1) throw new ApiError("agent_target_ambiguous", `agent target ${target} is ambiguous`);
  return panes[0]!;
}

function checkNamePattern(name: string): void {
  if (!AGENT_NAME_RE.test(name)) throw new ApiError("invalid_agent_name", `invalid agent name ${name}: must match [a-z][a-z0-9_-]{0,31}`);
}

function checkNameFree(s: FakeState, name: string, self?: PaneRec): void {
  if (s.panes.some((p) => p !== self && p.agent?.name === name)) throw new ApiError("agent_name_taken", `agent name ${name} is already taken`);
}

/** --until and --timeout belong to a wait; herdr rejects them client-side otherwise. */
function waitOptions(p: Parsed, needsWait: boolean): { until: AgentStatus[]; timeout?: number } {
  if (needsWait && p.opts["--wait"] !== true) {
    for (const o of ["--until", "--timeout"]) if (p.opts[o] !== undefined) throw new UsageError(`the argument '${o}' requires '--wait'`);
  }
  const until = optList(p, "--until");
  const bad = until.find((u) => !(AGENT_STATUSES as readonly string[]).includes(u));
  if (bad !== undefined) throw new UsageError(`invalid value '${bad}' for '--until'`);
  return { until: until.length ? (until as AgentStatus[]) : DEFAULT_UNTIL, timeout: optInt(p, "--timeout") };
}

function trustDialog(cwd: string, onYes = false): string {
  // Claude Code 2.1.332's, as the real herdr shows it: options without digits, the cursor on "No, exit".
  return [
    "Accessing workspace:", "", ` ${cwd}`, "",
    " Quick safety check: Is this a project you created or one you trust? (Like your own code, a well-known",
    " open source project, or work from your team). If not, take a moment to review what's in this folder first.",
    "", onYes ? "   No, exit" : " ❯ No, exit", onYes ? " ❯ Yes, I trust this folder" : "   Yes, I trust this folder",
    "", " Enter to confirm · Esc to cancel",
  ].join("\n");
}

/** What each harness shows once it takes input (the real ones' idle screens, in short). */
const READY_SCREENS: Record<string, string> = {
  claude: "╭ Claude Code\n❯ \n? for shortcuts",
  codex: ">_ OpenAI Codex\npermissions: YOLO mode\n› Ask Codex to do anything",
  opencode: "Ask anything",
  copilot: "> \n· / commands",
  gemini: "> Type your message or @path/to/file",
};

function readyScreen(kind: string): string {
  return READY_SCREENS[kind] ?? `${kind} ready`;
}

/** Echo of a submitted prompt, as an agent TUI shows it in its transcript. */
function echoPrompt(text: string): string {
  return text.split("\n").map((line, i) => (i ? "  " : "> ") + line).join("\n");
}

interface WaitSpec {
  target: string;
  pane_id: string;
  uid: number;
  until: AgentStatus[];
  timeout?: number;
  start: number;
  seq0: number;
  /** A prompt wait only matches after the agent reacted (or if it was already working). */
  armed: boolean;
  stallMs?: number;
  type: string;
}

function beginWait(s: FakeState, ctx: Ctx, w: WaitSpec, now: number): Outcome {
  s.waiting.push({ pid: process.pid, command: ctx.id, target: w.target, pane_id: w.pane_id, since: iso(now) });
  return { wait: () => waitLoop(ctx, w) };
}

function pollWait(s: FakeState, ctx: Ctx, w: WaitSpec, now: number): Outcome | null {
  try {
    const out = checkWait(s, ctx, w, now);
    if (out) s.waiting = s.waiting.filter((x) => x.pid !== process.pid);
    return out;
  } catch (e) {
    s.waiting = s.waiting.filter((x) => x.pid !== process.pid);
    throw e;
  }
}

async function waitLoop(ctx: Ctx, w: WaitSpec): Promise<Outcome> {
  for (;;) {
    const done = withState(ctx.statePath, (s, now) => pollWait(s, ctx, w, now));
    if (done) return done;
    await Bun.sleep(POLL_MS);
  }
}

function checkWait(s: FakeState, ctx: Ctx, w: WaitSpec, now: number): Outcome | null {
  checkServer(s, ctx.socket);
  const pane = findPane(s, w.pane_id);
  if (!pane?.agent || pane.agent.uid !== w.uid) throw new ApiError("agent_not_running", `agent ${w.target} is no longer running`);
  const a = pane.agent;
  if (a.state_change_seq !== w.seq0) w.armed = true;
  if (w.armed && w.until.includes(a.status)) return { json: { type: w.type, agent: agentInfo(s, pane) } };
  const elapsed = now - w.start;
  if (!w.armed && w.stallMs !== undefined && elapsed >= w.stallMs) {
    throw new ApiError("agent_prompt_stalled", `agent ${w.target} did not change state within ${w.stallMs}ms of the prompt`);
  }
  if (w.timeout !== undefined && elapsed >= w.timeout) throw new ApiError("timeout", "timed out waiting for agent status");
  return null;
}

function deliverPrompt(s: FakeState, pane: PaneRec, text: string, now: number): void {
  const agent = pane.agent!;
  s.prompts.push({ agent: agent.name ?? null, kind: agent.kind, pane_id: pane.pane_id, text, at: iso(now) });
  appendLine(pane, echoPrompt(text));
  const steps = agent.reactions.shift() ?? agent.reaction;
  if (steps) runReaction(s, pane, steps, now);
  else setStatus(agent, "working");
}

const READ_OPTS = { "--source": "value", "--lines": "value", "--format": "value", "--ansi": "flag" } as const;

export const AGENT_COMMANDS: Record<string, CommandDef> = {
  "agent list": {
    usage: "herdr agent list", opts: {}, min: 0, max: 0,
    run: (_p, s) => ({ json: { type: "agent_list", agents: s.panes.filter((p) => p.agent).map((p) => agentInfo(s, p)) } }),
  },
  "agent get": {
    usage: "herdr agent get <target>", opts: {}, min: 1, max: 1,
    run: (p, s) => ({ json: { type: "agent_info", agent: agentInfo(s, resolveTarget(s, p.pos[0]!)) } }),
  },
  "agent start": {
    usage: "herdr agent start <name> --kind KIND --pane PANE_ID [--timeout MS] [-- <agent args...>]",
    opts: { "--kind": "value", "--pane": "value", "--timeout": "value" }, min: 1, max: 1, rest: true,
    handles: (f) => f.code === "agent_not_ready",
    run: (p, s, ctx) => {
      const name = p.pos[0]!;
      const kind = optStr(p, "--kind");
      const paneId = optStr(p, "--pane");
      if (kind === undefined || paneId === undefined) throw new UsageError(`usage: ${AGENT_COMMANDS["agent start"]!.usage}`);
      const timeout = optInt(p, "--timeout");
      checkNamePattern(name);
      if (!(AGENT_KINDS as readonly string[]).includes(kind)) throw new ApiError("unsupported_agent_kind", `unsupported agent kind ${kind}`);
      if (timeout !== undefined && (timeout <= 3000 || timeout > 300000)) {
        throw new ApiError("invalid_agent_timeout", "timeout must be greater than 3000 and at most 300000 ms");
      }
      // herdr types the command line into the shell, so a line break cannot be an argument.
      const badArg = p.rest.find((a) => /[\r\n\0]/.test(a));
      if (badArg !== undefined) throw new ApiError("invalid_agent_argument", `invalid agent argument ${JSON.stringify(badArg)}`);
      const pane = findPane(s, paneId);
      if (!pane) throw new ApiError("agent_pane_not_found", `pane ${paneId} not found`);
      if (pane.agent) throw new ApiError("agent_pane_busy", `pane ${paneId} is not an available shell`);
      checkNameFree(s, name);
      const argv = [kindExecutable(kind), ...p.rest];
      appendLine(pane, `$ ${argv.join(" ")}`);
      const agent = newAgent(s, pane, kind, argv, name);
      const f = ctx.failure;
      if (!f) appendLine(pane, readyScreen(kind));
      if (f) {
        // The name is kept, so `agent read` and `agent send-keys` reach the dialog.
        agent.interactive_ready = false;
        setStatus(agent, "blocked");
        const dialog = f.dialog ?? trustDialog(pane.cwd);
        // On screen only: once answered, the real harness draws over it.
        pane.visible = dialog;
        // The default dialog takes Down, then Enter; a scripted one the key it names.
        agent.accept_key = f.accept_key ?? (f.dialog === undefined ? "Down Enter" : "1");
        throw new ApiError(f.code, failureMessage(f));
      }
      return { json: { type: "agent_started", agent: agentInfo(s, pane), argv } };
    },
  },
  "agent prompt": {
    usage: "herdr agent prompt <target> <text> [--wait] [--until STATUS]... [--timeout MS]",
    opts: { "--wait": "flag", "--until": "multi", "--timeout": "value" }, min: 2, max: 2,
    handles: (f) => f.deliver === true,
    run: (p, s, ctx, now) => {
      const { until, timeout } = waitOptions(p, true);
      const [target, text] = [p.pos[0]!, p.pos[1]!];
      const pane = resolveTarget(s, target);
      if (!text.trim()) throw new ApiError("empty_agent_prompt", "prompt text is empty");
      const agent = pane.agent!;
      if (!agent.interactive_ready) throw new ApiError("agent_not_ready", `agent ${target} is not ready for input`);
      if (agent.status === "blocked" && !ctx.failure) {
        throw new ApiError("agent_blocked", `agent ${target} is blocked on a dialog; prompt not sent`);
      }
      const w: WaitSpec = {
        target, pane_id: pane.pane_id, uid: agent.uid, until, timeout, start: now, seq0: agent.state_change_seq,
        armed: agent.status === "working", type: "agent_prompted",
      };
      // Without a timeout the wait is indefinite, which counts as longer than the stall window.
      if (!w.armed && (timeout === undefined || timeout > s.stall_ms)) w.stallMs = s.stall_ms;
      deliverPrompt(s, pane, text, now);
      if (ctx.failure) throw new ApiError(ctx.failure.code, failureMessage(ctx.failure));
      if (pane.agent?.uid !== agent.uid) throw new ApiError("agent_not_running", `agent ${target} is no longer running`);
      if (p.opts["--wait"] !== true) return { json: { type: "agent_prompted", agent: agentInfo(s, pane) } };
      return beginWait(s, ctx, w, now);
    },
  },
  "agent wait": {
    usage: "herdr agent wait <target> [--until STATUS]... [--timeout MS]",
    opts: { "--until": "multi", "--timeout": "value" }, min: 1, max: 1,
    run: (p, s, ctx, now) => {
      const { until, timeout } = waitOptions(p, false);
      const pane = resolveTarget(s, p.pos[0]!);
      const a = pane.agent!;
      if (until.includes(a.status)) return { json: { type: "agent_info", agent: agentInfo(s, pane) } };
      const w: WaitSpec = {
        target: p.pos[0]!, pane_id: pane.pane_id, uid: a.uid, until, timeout, start: now,
        seq0: a.state_change_seq, armed: true, type: "agent_info",
      };
      return beginWait(s, ctx, w, now);
    },
  },
  "agent read": {
    usage: "herdr agent read <target> [--source visible|recent|recent-unwrapped|detection] [--lines N] [--format text|ansi] [--ansi]",
    opts: READ_OPTS, min: 1, max: 1,
    run: (p, s) => {
      const o = readOptions(p);
      return { text: readPaneText(s, resolveTarget(s, p.pos[0]!), o.source, o.lines, o.ansi) };
    },
  },
  "agent send-keys": {
    usage: "herdr agent send-keys <target> <key>...", opts: {}, min: 2, max: Infinity,
    run: (p, s, _ctx, now) => {
      const pane = resolveTarget(s, p.pos[0]!);
      const keys = p.pos.slice(1);
      checkKeys(keys);
      const agent = pane.agent!;
      s.keys.push({ agent: agent.name ?? null, pane_id: pane.pane_id, keys, at: iso(now) });
      for (const key of keys) {
        // The dialog's keys, in order: each one expected moves it on; the last accepts it.
        const [next, ...rest] = agent.accept_key?.split(" ") ?? [];
        if (next === undefined || key.toLowerCase() !== next.toLowerCase()) continue;
        agent.accept_key = rest.length ? rest.join(" ") : undefined;
        if (rest.length) {
          pane.visible = trustDialog(pane.cwd, true);
          continue;
        }
        agent.interactive_ready = true;
        pane.visible = null;
        appendLine(pane, readyScreen(agent.kind));
        setStatus(agent, s.initial_status);
      }
      return { json: { type: "ok" } };
    },
  },
  "agent rename": {
    usage: "herdr agent rename <target> <name>", opts: {}, min: 2, max: 2,
    run: (p, s) => {
      const pane = resolveTarget(s, p.pos[0]!);
      checkNamePattern(p.pos[1]!);
      checkNameFree(s, p.pos[1]!, pane);
      pane.agent!.name = p.pos[1]!;
      return { json: { type: "agent_info", agent: agentInfo(s, pane) } };
    },
  },
};

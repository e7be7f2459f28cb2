// The `herdr agent ...` commands of the fake: the facade vx drives.
import { ApiError, UsageError, checkServer, stillWanted, failureMessage, optInt, optList, optStr, type CommandDef, type Ctx, type Outcome, type Parsed } from "./herdr-cli.ts";
import { existsSync } from "node:fs";
import { AGENT_KINDS, AGENT_NAME_RE, agentInfo, kindExecutable } from "./herdr-info.ts";
import { onPath, paneEnv, promptSteps, readPaneText, startSteps } from "./herdr-program.ts";
import {
  AGENT_STATUSES,
  appendLine,
  findAgentPane,
  findPane,
  hasAgent,
  iso,
  newAgent,
  nextSeq,
  removeAgent,
  runReaction,
  setStatus,
  withState,
  type AgentStatus,
  type FakeState,
  type PaneRec,
  type ReactionStep,
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
  if (!AGENT_NAME_RE.test(name)) {
    throw new ApiError("invalid_agent_name", "agent name must start with a lowercase letter and contain only lowercase letters, digits, '-' or '_' (1-32 characters)");
  }
}

function checkNameFree(s: FakeState, name: string, self?: PaneRec): void {
  const holder = s.panes.find((p) => p !== self && p.agent?.name === name);
  if (holder) {
    throw new ApiError(
      "agent_name_taken",
      `agent name ${name} is already used; candidates: terminal_id=${holder.terminal_id} pane_id=${holder.pane_id} workspace_id=${holder.workspace_id} tab_id=${holder.tab_id} cwd=${holder.cwd}`,
    );
  }
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
    "Accessing workspace:",
    "",
    ` ${cwd}`,
    "",
    " Quick safety check: Is this a project you created or one you trust? (Like your own code, a well-known",
    " open source project, or work from your team). If not, take a moment to review what's in this folder first.",
    "",
    onYes ? "   No, exit" : " ❯ No, exit",
    onYes ? " ❯ Yes, I trust this folder" : "   Yes, I trust this folder",
    "",
    " Enter to confirm · Esc to cancel",
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

/** Echo of a submitted prompt: herdr types it, so each of its lines is an input line of its own. */
function echoPrompt(text: string): string {
  return text
    .split("\n")
    .map((line) => `> ${line}`)
    .join("\n");
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
  // The caller's pid: a test tells a killed caller's wait from a live one by it (activeWaits).
  s.waiting.push({ pid: ctx.pid, command: ctx.id, target: w.target, pane_id: w.pane_id, since: iso(now) });
  return { wait: () => waitLoop(ctx, w) };
}

function pollWait(s: FakeState, ctx: Ctx, w: WaitSpec, now: number): Outcome | null {
  try {
    const out = checkWait(s, ctx, w, now);
    if (out) s.waiting = s.waiting.filter((x) => x.pid !== ctx.pid);
    return out;
  } catch (e) {
    s.waiting = s.waiting.filter((x) => x.pid !== ctx.pid);
    throw e;
  }
}

async function waitLoop(ctx: Ctx, w: WaitSpec): Promise<Outcome> {
  for (;;) {
    const done = withState(ctx.statePath, (s, now) => pollWait(s, ctx, w, now));
    if (done) return done;
    await Bun.sleep(POLL_MS);
    stillWanted(ctx);
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

/**
 * The prompt reaches the program, whose screen then decides the status: a one-shot or standing
 * reaction the test scripted, else the kind's scripted program, else a bare program that starts
 * working as it reads the prompt. herdr itself changes no status on a prompt.
 */
function deliverPrompt(s: FakeState, pane: PaneRec, text: string, now: number): void {
  const agent = pane.agent!;
  s.prompts.push({ agent: agent.name ?? null, kind: agent.kind, pane_id: pane.pane_id, text, at: iso(now) });
  const program = s.programs?.[agent.kind];
  // A program that draws its own screen shows the input itself; a bare one leaves the typed lines.
  if (!program) appendLine(pane, echoPrompt(text));
  const steps: ReactionStep[] = agent.reactions.shift() ?? agent.reaction ?? (program ? promptSteps(program, text, agent.env) : [{ after_ms: 0, status: "working" }]);
  runReaction(s, pane, steps, now);
}

/** The launch is over: the program draws its first screen (or the agent takes the configured status). */
function finishStart(s: FakeState, pane: PaneRec, now: number): void {
  const agent = pane.agent!;
  Object.assign(agent, { launch_pending: false, detected: true, interactive_ready: true });
  const program = s.programs?.[agent.kind];
  if (program) runReaction(s, pane, startSteps(program, agent.env), now);
  else {
    agent.status = s.initial_status;
    if (agent.status !== "unknown") agent.state_change_seq = nextSeq(s);
  }
}

/**
 * The rest of a launch that takes time: a held `agent start` finishes when its gate opens; a
 * program missing from the server's PATH never appears, and herdr gives up with `timeout`.
 */
function launchWait(ctx: Ctx, paneId: string, uid: number, missing: boolean, timeoutMs: number, gate?: string): Outcome {
  return {
    wait: async () => {
      if (missing) await Bun.sleep(timeoutMs);
      else while (gate && existsSync(gate)) await Bun.sleep(20);
      stillWanted(ctx);
      return withState(ctx.statePath, (s, now) => {
        checkServer(s, ctx.socket);
        const pane = findPane(s, paneId);
        if (pane?.agent?.uid !== uid) throw new ApiError("agent_not_found", `agent target ${paneId} not found`);
        if (missing) {
          removeAgent(s, pane);
          throw new ApiError("timeout", "timed out waiting for agent startup");
        }
        finishStart(s, pane, now);
        return { json: { type: "agent_started", agent: agentInfo(s, pane), argv: pane.agent.argv } };
      });
    },
  };
}

const READ_OPTS = { "--source": "value", "--lines": "value", "--format": "value", "--ansi": "flag" } as const;

export const AGENT_COMMANDS: Record<string, CommandDef> = {
  "agent list": {
    usage: "herdr agent list",
    opts: {},
    min: 0,
    max: 0,
    run: (_p, s, _ctx, now) => ({ json: { type: "agent_list", agents: s.panes.filter((p) => hasAgent(p, now)).map((p) => agentInfo(s, p)) } }),
  },
  "agent get": {
    usage: "herdr agent get <target>",
    opts: {},
    min: 1,
    max: 1,
    run: (p, s) => ({ json: { type: "agent_info", agent: agentInfo(s, resolveTarget(s, p.pos[0]!)) } }),
  },
  "agent start": {
    usage: "herdr agent start <name> --kind KIND --pane ID [--timeout MS] [-- <agent-args...>]",
    opts: { "--kind": "value", "--pane": "value", "--timeout": "value" },
    min: 1,
    max: 1,
    rest: true,
    handles: (f) => f.code === "agent_not_ready",
    run: (p, s, ctx, now) => {
      const name = p.pos[0]!;
      const kind = optStr(p, "--kind");
      const paneId = optStr(p, "--pane");
      if (kind === undefined || paneId === undefined) throw new UsageError(`usage: ${AGENT_COMMANDS["agent start"]!.usage}`);
      if (!(AGENT_KINDS as readonly string[]).includes(kind)) throw new UsageError(`unsupported interactive agent kind: ${kind}`);
      const timeout = optInt(p, "--timeout");
      checkNamePattern(name);
      if (timeout !== undefined && (timeout <= 3000 || timeout > 300000)) {
        throw new ApiError("invalid_agent_timeout", "timeout must be greater than 3000 and at most 300000 ms");
      }
      // herdr types the command line into the shell, so a line break cannot be an argument.
      const badArg = p.rest.find((a) => /[\r\n\0]/.test(a));
      if (badArg !== undefined) throw new ApiError("invalid_agent_argument", `invalid agent argument ${JSON.stringify(badArg)}`);
      const pane = findPane(s, paneId);
      if (!pane) throw new ApiError("agent_pane_not_found", `agent target pane ${paneId} not found`);
      if (pane.agent) throw new ApiError("agent_pane_busy", `agent target pane ${paneId} is not an available shell`);
      checkNameFree(s, name);
      const argv = [kindExecutable(kind), ...p.rest];
      appendLine(pane, `$ ${argv.join(" ")}`);
      const agent = newAgent(s, pane, kind, argv, name);
      // Named at once, then `unknown` and launch-pending until herdr sees the program's screen.
      Object.assign(agent, { status: "unknown", state_change_seq: 0, launch_pending: true, detected: false, interactive_ready: false });
      agent.env = paneEnv(s, pane, ctx.socket);
      const f = ctx.failure;
      if (!f) appendLine(pane, readyScreen(kind));
      if (f) {
        // A startup screen: detected and blocked, still launch-pending; the name is kept, so
        // `agent read` and `agent send-keys` reach the dialog.
        agent.detected = true;
        setStatus(s, pane, "blocked");
        const dialog = f.dialog ?? trustDialog(pane.cwd);
        // On screen only: once answered, the real harness draws over it.
        pane.visible = dialog;
        // The default dialog takes Down, then Enter; a scripted one the key it names.
        agent.accept_key = f.accept_key ?? (f.dialog === undefined ? "Down Enter" : "1");
        throw new ApiError(f.code, failureMessage(f));
      }
      const missing = s.server_env !== null && !onPath(argv[0]!, s.server_env);
      const hold = s.holds?.find((h) => h.command === "agent start" && existsSync(h.gate));
      const gate = hold?.gate;
      if (missing || gate) return launchWait(ctx, pane.pane_id, agent.uid, missing, timeout ?? s.start_timeout_ms, gate);
      finishStart(s, pane, now);
      return { json: { type: "agent_started", agent: agentInfo(s, pane), argv } };
    },
  },
  "agent prompt": {
    usage: "herdr agent prompt <target> <text> [--wait] [--until STATUS]... [--timeout MS]",
    opts: { "--wait": "flag", "--until": "multi", "--timeout": "value" },
    min: 2,
    max: 2,
    handles: (f) => f.deliver === true,
    run: (p, s, ctx, now) => {
      const { until, timeout } = waitOptions(p, true);
      const [target, text] = [p.pos[0]!, p.pos[1]!];
      if (!text) throw new ApiError("empty_agent_prompt", "agent prompt must not be empty");
      const pane = resolveTarget(s, target);
      const agent = pane.agent!;
      // herdr's order: a blocked screen first, then a launch not over (or a started agent not ready).
      if (agent.status === "blocked" && !ctx.failure) {
        throw new ApiError("agent_blocked", `agent ${target} is blocked and requires interactive input`);
      }
      if (agent.launch_pending || agent.detected === false || (agent.name !== undefined && !agent.interactive_ready)) {
        throw new ApiError("agent_not_ready", `agent ${target} is not ready for input`);
      }
      // The answer shows the agent as it was before the prompt: the program has not read it yet.
      const before = agentInfo(s, pane);
      const w: WaitSpec = {
        target,
        pane_id: pane.pane_id,
        uid: agent.uid,
        until,
        timeout,
        start: now,
        seq0: agent.state_change_seq,
        armed: agent.status === "working",
        type: "agent_prompted",
      };
      // Without a timeout the wait is indefinite, which counts as longer than the stall window.
      if (!w.armed && (timeout === undefined || timeout > s.stall_ms)) w.stallMs = s.stall_ms;
      deliverPrompt(s, pane, text, now);
      if (ctx.failure) throw new ApiError(ctx.failure.code, failureMessage(ctx.failure));
      if (pane.agent?.uid !== agent.uid) throw new ApiError("agent_not_running", `agent ${target} is no longer running`);
      if (p.opts["--wait"] !== true) return { json: { type: "agent_prompted", agent: before } };
      return beginWait(s, ctx, w, now);
    },
  },
  "agent wait": {
    usage: "herdr agent wait <target> [--until STATUS]... [--timeout MS]",
    opts: { "--until": "multi", "--timeout": "value" },
    min: 1,
    max: 1,
    run: (p, s, ctx, now) => {
      const { until, timeout } = waitOptions(p, false);
      const pane = resolveTarget(s, p.pos[0]!);
      const a = pane.agent!;
      if (until.includes(a.status)) return { json: { type: "agent_info", agent: agentInfo(s, pane) } };
      const w: WaitSpec = {
        target: p.pos[0]!,
        pane_id: pane.pane_id,
        uid: a.uid,
        until,
        timeout,
        start: now,
        seq0: a.state_change_seq,
        armed: true,
        type: "agent_info",
      };
      return beginWait(s, ctx, w, now);
    },
  },
  "agent read": {
    usage: "herdr agent read <target> [--source visible|recent|recent-unwrapped|detection] [--lines N] [--format text|ansi] [--ansi]",
    opts: READ_OPTS,
    min: 1,
    max: 1,
    run: (p, s) => {
      const o = readOptions(p);
      return { text: readPaneText(s, resolveTarget(s, p.pos[0]!), o.source, o.lines, o.ansi) };
    },
  },
  "agent send-keys": {
    usage: "herdr agent send-keys <target> <key>...",
    opts: {},
    min: 2,
    max: Infinity,
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
        pane.visible = null;
        appendLine(pane, readyScreen(agent.kind));
        finishStart(s, pane, now);
      }
      return { json: { type: "ok" } };
    },
  },
  "agent rename": {
    usage: "herdr agent rename <target> <name>",
    opts: {},
    min: 2,
    max: 2,
    run: (p, s) => {
      const pane = resolveTarget(s, p.pos[0]!);
      checkNamePattern(p.pos[1]!);
      checkNameFree(s, p.pos[1]!, pane);
      pane.agent!.name = p.pos[1]!;
      return { json: { type: "agent_info", agent: agentInfo(s, pane) } };
    },
  },
};

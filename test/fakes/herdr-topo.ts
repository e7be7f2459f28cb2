// Workspace, tab, pane and snapshot commands of the fake herdr.
import { basename } from "node:path";
import { ApiError, CliError, UsageError, optInt, optList, optStr, versionAtLeast, type CommandDef, type Outcome, type Parsed } from "./herdr-cli.ts";
import { agentInfo, detectKind, paneInfo, tabInfo, validKey, workspaceInfo } from "./herdr-info.ts";
import { closePane, closeTab, closeWorkspace, newPane, newTab, newWorkspace } from "./herdr-layout.ts";
import { DETECT_APPEAR_MS, DETECT_SETTLE_MS, paneEnv, readPaneText, startSteps } from "./herdr-program.ts";
import { appendLine, findPane, hasAgent, iso, newAgent, runReaction, type FakeState, type PaneRec, type ReactionStep, type TabRec, type WorkspaceRec } from "./herdr-state.ts";

const CREATE_OPTS = { "--cwd": "value", "--label": "value", "--env": "multi", "--focus": "flag", "--no-focus": "flag" } as const;
const READ_SOURCES = ["visible", "recent", "recent-unwrapped", "detection"];
const OK: Outcome = { json: { type: "ok" } };

/** `--env K=V`, given to the new pane's shell on top of the server's environment. */
function checkEnv(p: Parsed): Record<string, string> | undefined {
  const kvs = optList(p, "--env");
  for (const kv of kvs) if (!kv.includes("=")) throw new UsageError(`invalid value '${kv}' for '--env': expected KEY=VALUE`);
  if (!kvs.length) return undefined;
  return Object.fromEntries(kvs.map((kv) => [kv.slice(0, kv.indexOf("=")), kv.slice(kv.indexOf("=") + 1)]));
}

function workspaceOf(s: FakeState, id: string): WorkspaceRec {
  const ws = s.workspaces.find((w) => w.workspace_id === id);
  if (!ws) throw new ApiError("workspace_not_found", `workspace ${id} not found`);
  return ws;
}

export function paneOf(s: FakeState, id: string): PaneRec {
  const pane = findPane(s, id);
  if (!pane) throw new ApiError("pane_not_found", `pane ${id} not found`);
  return pane;
}

function tabOf(s: FakeState, id: string): TabRec {
  const tab = s.tabs.find((t) => t.tab_id === id);
  if (!tab) throw new ApiError("tab_not_found", `tab ${id} not found`);
  return tab;
}

function focus(s: FakeState, pane: PaneRec): void {
  s.focused_workspace_id = pane.workspace_id;
  workspaceOf(s, pane.workspace_id).active_tab_id = pane.tab_id;
  tabOf(s, pane.tab_id).active_pane_id = pane.pane_id;
  // A finished turn looked at is no longer news: `done` reads `idle` once its tab is shown.
  for (const p of s.panes) if (p.tab_id === pane.tab_id && p.agent?.status === "done") p.agent.status = "idle";
}

function focusedPane(s: FakeState): PaneRec | undefined {
  const ws = s.workspaces.find((w) => w.workspace_id === s.focused_workspace_id);
  const tab = s.tabs.find((t) => t.tab_id === ws?.active_tab_id);
  return s.panes.find((p) => p.pane_id === tab?.active_pane_id);
}

export function readOptions(p: Parsed): { source: string; lines?: number; ansi: boolean } {
  const source = optStr(p, "--source") ?? "recent";
  if (!READ_SOURCES.includes(source)) throw new CliError(`Error: Custom { kind: Other, error: "invalid read source: ${source}" }`);
  const format = optStr(p, "--format") ?? "text";
  if (format !== "text" && format !== "ansi") throw new UsageError(`invalid value '${format}' for '--format'`);
  return { source, lines: optInt(p, "--lines"), ansi: format === "ansi" || p.opts["--ansi"] === true };
}

export function checkKeys(keys: string[]): void {
  const bad = keys.find((k) => !validKey(k));
  if (bad !== undefined) throw new ApiError("invalid_key", `invalid key: ${bad}`);
}

/**
 * A harness typed into a pane: herdr lists it only after a while (`agent_not_found` until then),
 * then as `unknown` for a few seconds, then with its screen's status. It has no name and never
 * reports `interactive_ready`.
 */
function detectAgent(s: FakeState, pane: PaneRec, kind: string, argv: string[], env: Record<string, string> | undefined, now: number): void {
  const agent = newAgent(s, pane, kind, argv);
  Object.assign(agent, { status: "unknown", state_change_seq: 0, interactive_ready: false, appears_at: now + DETECT_APPEAR_MS });
  if (env) agent.env = env;
  const program = s.programs?.[kind];
  const settle: ReactionStep[] = program ? startSteps(program, env) : [{ after_ms: 0, status: s.initial_status }];
  runReaction(
    s,
    pane,
    settle.map((st) => ({ ...st, after_ms: st.after_ms + DETECT_APPEAR_MS + DETECT_SETTLE_MS })),
    now,
  );
}

export const TOPO_COMMANDS: Record<string, CommandDef> = {
  "workspace create": {
    usage: "herdr workspace create [--cwd PATH] [--label TEXT] [--env K=V]... [--focus|--no-focus]",
    opts: CREATE_OPTS,
    min: 0,
    max: 0,
    run: (p, s, ctx) => {
      const env = checkEnv(p);
      const cwd = optStr(p, "--cwd") ?? ctx.cwd;
      const { ws, tab, pane } = newWorkspace(s, cwd, optStr(p, "--label") ?? (basename(cwd) || undefined));
      if (env) pane.env = env;
      if (p.opts["--focus"] === true) focus(s, pane);
      return { json: { type: "workspace_created", workspace: workspaceInfo(s, ws), tab: tabInfo(s, tab), root_pane: paneInfo(s, pane) } };
    },
  },
  "workspace list": {
    usage: "herdr workspace list",
    opts: {},
    min: 0,
    max: 0,
    run: (_p, s) => ({ json: { type: "workspace_list", workspaces: s.workspaces.map((w) => workspaceInfo(s, w)) } }),
  },
  "workspace get": {
    usage: "herdr workspace get <workspace_id>",
    opts: {},
    min: 1,
    max: 1,
    run: (p, s) => ({ json: { type: "workspace_info", workspace: workspaceInfo(s, workspaceOf(s, p.pos[0]!)) } }),
  },
  "workspace close": {
    usage: "herdr workspace close <workspace_id>",
    opts: {},
    min: 1,
    max: 1,
    run: (p, s) => {
      if (!closeWorkspace(s, p.pos[0]!)) throw new ApiError("workspace_not_found", `workspace ${p.pos[0]} not found`);
      return OK;
    },
  },
  "tab create": {
    usage: "herdr tab create [--workspace ID] [--cwd PATH] [--label TEXT] [--env K=V]... [--focus|--no-focus]",
    opts: { ...CREATE_OPTS, "--workspace": "value" },
    min: 0,
    max: 0,
    run: (p, s) => {
      const env = checkEnv(p);
      const wsId = optStr(p, "--workspace") ?? s.focused_workspace_id;
      if (!wsId) throw new ApiError("workspace_not_found", "no active workspace");
      const ws = workspaceOf(s, wsId);
      const { tab, pane } = newTab(s, ws, optStr(p, "--cwd") ?? ws.cwd, optStr(p, "--label"));
      if (env) pane.env = env;
      if (p.opts["--focus"] === true) focus(s, pane);
      return { json: { type: "tab_created", tab: tabInfo(s, tab), root_pane: paneInfo(s, pane) } };
    },
  },
  "tab list": {
    usage: "herdr tab list [--workspace ID]",
    opts: { "--workspace": "value" },
    min: 0,
    max: 0,
    run: (p, s) => {
      const wsId = optStr(p, "--workspace");
      if (wsId) workspaceOf(s, wsId);
      const tabs = s.tabs.filter((t) => !wsId || t.workspace_id === wsId);
      return { json: { type: "tab_list", tabs: tabs.map((t) => tabInfo(s, t)) } };
    },
  },
  "tab get": {
    usage: "herdr tab get <tab_id>",
    opts: {},
    min: 1,
    max: 1,
    run: (p, s) => ({ json: { type: "tab_info", tab: tabInfo(s, tabOf(s, p.pos[0]!)) } }),
  },
  "tab close": {
    usage: "herdr tab close <tab_id>",
    opts: {},
    min: 1,
    max: 1,
    run: (p, s) => {
      if (!closeTab(s, p.pos[0]!)) throw new ApiError("tab_not_found", `tab ${p.pos[0]} not found`);
      return OK;
    },
  },
  "pane split": {
    usage: "herdr pane split [<pane_id>|--pane ID|--current] --direction right|down [--ratio F] [--cwd PATH] [--env K=V]... [--focus|--no-focus]",
    opts: {
      "--pane": "value",
      "--current": "flag",
      "--direction": "value",
      "--ratio": "value",
      "--cwd": "value",
      "--env": "multi",
      "--right-click": "value",
      "--focus": "flag",
      "--no-focus": "flag",
    },
    min: 0,
    max: 1,
    run: (p, s, ctx) => {
      const env = checkEnv(p);
      const dir = optStr(p, "--direction");
      if (dir !== "right" && dir !== "down") throw new UsageError(`usage: ${TOPO_COMMANDS["pane split"]!.usage}`);
      const ratio = optStr(p, "--ratio");
      if (ratio !== undefined && !(Number(ratio) > 0 && Number(ratio) < 1)) throw new UsageError(`invalid value '${ratio}' for '--ratio'`);
      const explicit = p.pos[0] ?? optStr(p, "--pane") ?? (p.opts["--current"] ? ctx.env.HERDR_PANE_ID : undefined);
      // 0.9.1 changed a target-less split from the UI-focused pane to the calling pane.
      const implicit = versionAtLeast(s.version, "0.9.1") && ctx.env.HERDR_PANE_ID ? findPane(s, ctx.env.HERDR_PANE_ID) : focusedPane(s);
      const target = explicit !== undefined ? paneOf(s, explicit) : implicit;
      if (!target) throw new ApiError("pane_not_found", "no pane to split");
      const pane = newPane(s, workspaceOf(s, target.workspace_id), target.tab_id, optStr(p, "--cwd") ?? target.cwd);
      if (env) pane.env = env;
      if (p.opts["--focus"] === true) focus(s, pane);
      return { json: { type: "pane_info", pane: paneInfo(s, pane) } };
    },
  },
  "pane list": {
    usage: "herdr pane list [--workspace ID]",
    opts: { "--workspace": "value" },
    min: 0,
    max: 0,
    run: (p, s) => {
      const wsId = optStr(p, "--workspace");
      if (wsId) workspaceOf(s, wsId);
      const panes = s.panes.filter((x) => !wsId || x.workspace_id === wsId);
      return { json: { type: "pane_list", panes: panes.map((x) => paneInfo(s, x)) } };
    },
  },
  "pane get": {
    usage: "herdr pane get <pane_id>",
    opts: {},
    min: 1,
    max: 1,
    run: (p, s) => ({ json: { type: "pane_info", pane: paneInfo(s, paneOf(s, p.pos[0]!)) } }),
  },
  "pane close": {
    usage: "herdr pane close <pane_id>",
    opts: {},
    min: 1,
    max: 1,
    run: (p, s) => {
      if (!closePane(s, p.pos[0]!)) throw new ApiError("pane_not_found", `pane ${p.pos[0]} not found`);
      return OK;
    },
  },
  "pane run": {
    usage: "herdr pane run <pane_id> <command...>",
    opts: {},
    min: 2,
    max: Infinity,
    run: (p, s, ctx, now) => {
      const pane = paneOf(s, p.pos[0]!);
      const text = p.pos.slice(1).join(" ");
      s.inputs.push({ pane_id: pane.pane_id, kind: "run", text, at: iso(now) });
      appendLine(pane, pane.agent ? `> ${text}` : `$ ${text}`);
      // herdr finds an agent from the pane's foreground process; it then has no name.
      const kind = pane.agent ? undefined : detectKind(text);
      if (kind) detectAgent(s, pane, kind, text.trim().split(/\s+/), paneEnv(s, pane, ctx.socket), now);
      return { silent: true };
    },
  },
  "pane send-text": {
    usage: "herdr pane send-text <pane_id> <text...>",
    opts: {},
    min: 2,
    max: Infinity,
    run: (p, s, _ctx, now) => {
      const pane = paneOf(s, p.pos[0]!);
      s.inputs.push({ pane_id: pane.pane_id, kind: "text", text: p.pos.slice(1).join(" "), at: iso(now) });
      return { silent: true };
    },
  },
  "pane send-keys": {
    usage: "herdr pane send-keys <pane_id> <key>...",
    opts: {},
    min: 2,
    max: Infinity,
    run: (p, s, _ctx, now) => {
      const pane = paneOf(s, p.pos[0]!);
      checkKeys(p.pos.slice(1));
      s.inputs.push({ pane_id: pane.pane_id, kind: "keys", keys: p.pos.slice(1), at: iso(now) });
      return { silent: true };
    },
  },
  "pane read": {
    usage: "herdr pane read <pane_id> [--source visible|recent|recent-unwrapped|detection] [--lines N] [--format text|ansi] [--ansi] [--raw]",
    opts: { "--source": "value", "--lines": "value", "--format": "value", "--ansi": "flag", "--raw": "flag" },
    min: 1,
    max: 1,
    run: (p, s) => {
      const o = readOptions(p);
      return { text: readPaneText(s, paneOf(s, p.pos[0]!), o.source, o.lines, o.ansi) };
    },
  },
  "api snapshot": {
    usage: "herdr api snapshot",
    opts: {},
    min: 0,
    max: 0,
    run: (_p, s) => {
      const fp = focusedPane(s);
      const snapshot: Record<string, unknown> = {
        version: s.version,
        protocol: s.protocol,
        layouts: [],
        workspaces: s.workspaces.map((w) => workspaceInfo(s, w)),
        tabs: s.tabs.map((t) => tabInfo(s, t)),
        panes: s.panes.map((x) => paneInfo(s, x)),
        agents: s.panes.filter((x) => hasAgent(x)).map((x) => agentInfo(s, x)),
      };
      if (fp) Object.assign(snapshot, { focused_workspace_id: fp.workspace_id, focused_tab_id: fp.tab_id, focused_pane_id: fp.pane_id });
      return { json: { type: "session_snapshot", snapshot } };
    },
  },
};

// Record shapes printed by the fake herdr (herdr.md section 4) and the small
// pure helpers the commands share: key names, kinds.
import { type AgentStatus, type FakeState, type PaneRec, type TabRec, type WorkspaceRec, hasAgent } from "./herdr-state.ts";

type Json = Record<string, unknown>;

export const AGENT_KINDS = [
  "pi",
  "claude",
  "codex",
  "gemini",
  "cursor",
  "devin",
  "agy",
  "cline",
  "omp",
  "mastracode",
  "opencode",
  "copilot",
  "kimi",
  "kiro",
  "droid",
  "amp",
  "grok",
  "hermes",
  "kilo",
  "qodercli",
  "qwen",
  "maki",
] as const;

export function kindExecutable(kind: string): string {
  if (kind === "cursor") return "cursor-agent";
  if (kind === "kiro") return "kiro-cli";
  return kind;
}

/** Kind detected from a command typed with `pane run`, as herdr's process detection would. */
export function detectKind(command: string): string | undefined {
  const exe = command.trim().split(/\s+/)[0]?.split("/").pop() ?? "";
  const aliases: Record<string, string> = { "claude-code": "claude", "cursor-agent": "cursor", "kiro-cli": "kiro", opencode2: "opencode", ghcs: "copilot", "qwen-code": "qwen" };
  if (aliases[exe]) return aliases[exe];
  return (AGENT_KINDS as readonly string[]).includes(exe) ? exe : undefined;
}

export const AGENT_NAME_RE = /^[a-z][a-z0-9_-]{0,31}$/;

const NAMED_KEYS = new Set([
  "enter",
  "return",
  "tab",
  "esc",
  "escape",
  "backspace",
  "left",
  "right",
  "up",
  "down",
  "home",
  "end",
  "pageup",
  "pagedown",
  "delete",
  "del",
  "insert",
  "space",
  "minus",
  "plus",
  "backtick",
]);

function validBaseKey(k: string): boolean {
  if (/^[\x21-\x7e]$/.test(k)) return true;
  const lower = k.toLowerCase();
  if (NAMED_KEYS.has(lower)) return true;
  const f = /^f(\d{1,2})$/.exec(lower);
  return !!f && Number(f[1]) >= 1 && Number(f[1]) <= 12;
}

/** herdr key syntax: names, single characters, ctrl+/alt+/shift+ chords, legacy C-x / M-x. */
export function validKey(key: string): boolean {
  if (/^[CM]-[\x21-\x7e]$/.test(key)) return true;
  const parts = key.split("+");
  if (parts.length > 1 && parts[parts.length - 1] === "" && parts[parts.length - 2] === "") {
    parts.splice(parts.length - 2, 2, "+");
  }
  const base = parts.pop() ?? "";
  if (!parts.every((m) => ["ctrl", "alt", "shift", "meta"].includes(m.toLowerCase()))) return false;
  if (new Set(parts.map((m) => m.toLowerCase())).size !== parts.length) return false;
  return validBaseKey(base);
}

/** Compact JSON with keys sorted at every level, as the herdr CLI prints. */
export function sortedJson(value: unknown): string {
  const sort = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(sort);
    if (v && typeof v === "object") {
      const out: Json = {};
      for (const k of Object.keys(v).sort()) out[k] = sort((v as Json)[k]);
      return out;
    }
    return v;
  };
  return JSON.stringify(sort(value));
}

const ROLLUP_ORDER: AgentStatus[] = ["blocked", "working", "done", "idle", "unknown"];

export function rollup(statuses: AgentStatus[]): AgentStatus {
  return ROLLUP_ORDER.find((st) => statuses.includes(st)) ?? "unknown";
}

function paneStatus(p: PaneRec): AgentStatus {
  return hasAgent(p) ? p.agent!.status : "unknown";
}

function isFocused(s: FakeState, p: PaneRec): boolean {
  const ws = s.workspaces.find((w) => w.workspace_id === p.workspace_id);
  const tab = s.tabs.find((t) => t.tab_id === p.tab_id);
  return s.focused_workspace_id === p.workspace_id && ws?.active_tab_id === p.tab_id && tab?.active_pane_id === p.pane_id;
}

/** The title the program set, and herdr's copy without a leading status glyph (`✳ Claude Code` -> `Claude Code`). */
function titles(title: string): Json {
  return { terminal_title: title, terminal_title_stripped: title.replace(/^[^\p{L}\p{N}]+\s+/u, "").trim() };
}

export function agentInfo(s: FakeState, p: PaneRec): Json {
  const a = p.agent!;
  const info: Json = {
    terminal_id: p.terminal_id,
    agent_status: a.status,
    workspace_id: p.workspace_id,
    tab_id: p.tab_id,
    pane_id: p.pane_id,
    focused: isFocused(s, p),
    state_change_seq: a.state_change_seq,
    cwd: p.cwd,
    foreground_cwd: p.cwd,
    revision: p.revision,
  };
  // A launch herdr has not told apart yet has no kind (`agent start` of a missing program).
  if (a.detected !== false) info.agent = a.kind;
  if (a.name) info.name = a.name;
  if (a.interactive_ready) info.interactive_ready = true;
  if (a.launch_pending) info.launch_pending = true;
  if (a.title) Object.assign(info, titles(a.title));
  if (a.agent_session) info.agent_session = a.agent_session;
  return info;
}

export function paneInfo(s: FakeState, p: PaneRec): Json {
  const info: Json = {
    pane_id: p.pane_id,
    terminal_id: p.terminal_id,
    workspace_id: p.workspace_id,
    tab_id: p.tab_id,
    focused: isFocused(s, p),
    cwd: p.cwd,
    foreground_cwd: p.cwd,
    agent_status: paneStatus(p),
    revision: p.revision,
    scroll: { max_offset_from_bottom: 0, offset_from_bottom: 0, viewport_rows: s.screen_rows },
  };
  if (p.label) info.label = p.label;
  if (hasAgent(p) && p.agent!.detected !== false) info.agent = p.agent!.kind;
  if (hasAgent(p) && p.agent!.title) Object.assign(info, titles(p.agent!.title));
  return info;
}

export function tabInfo(s: FakeState, t: TabRec): Json {
  const panes = s.panes.filter((p) => p.tab_id === t.tab_id);
  const siblings = s.tabs.filter((x) => x.workspace_id === t.workspace_id);
  const ws = s.workspaces.find((w) => w.workspace_id === t.workspace_id);
  return {
    tab_id: t.tab_id,
    workspace_id: t.workspace_id,
    number: siblings.indexOf(t) + 1,
    label: t.label,
    focused: s.focused_workspace_id === t.workspace_id && ws?.active_tab_id === t.tab_id,
    pane_count: panes.length,
    agent_status: rollup(panes.map(paneStatus)),
  };
}

export function workspaceInfo(s: FakeState, w: WorkspaceRec): Json {
  const panes = s.panes.filter((p) => p.workspace_id === w.workspace_id);
  return {
    workspace_id: w.workspace_id,
    number: s.workspaces.indexOf(w) + 1,
    label: w.label,
    focused: s.focused_workspace_id === w.workspace_id,
    pane_count: panes.length,
    tab_count: s.tabs.filter((t) => t.workspace_id === w.workspace_id).length,
    active_tab_id: w.active_tab_id,
    agent_status: rollup(panes.map(paneStatus)),
  };
}

// The fake herdr's layout: workspaces, tabs and panes, made and closed as herdr does (ids in its
// bijective base-32 numbering, the last tab's close taking its workspace with it).
import { findPane, newTerminalId, removeAgent, type FakeState, type PaneRec, type TabRec, type WorkspaceRec } from "./herdr-state.ts";

const ALPHABET = "123456789ABCDEFGHJKMNPQRSTVWXYZ0";

/** herdr's bijective base-32 numbering: 1..9, A.., 0 (=32), then 11. */
export function encodeNumber(n: number): string {
  let out = "";
  while (n > 0) {
    n -= 1;
    out = ALPHABET[n % 32] + out;
    n = Math.floor(n / 32);
  }
  return out;
}

export function closePane(s: FakeState, paneId: string): boolean {
  const pane = findPane(s, paneId);
  if (!pane) return false;
  removeAgent(s, pane);
  s.panes = s.panes.filter((p) => p !== pane);
  const tab = s.tabs.find((t) => t.tab_id === pane.tab_id);
  if (!tab) return true;
  const left = s.panes.filter((p) => p.tab_id === tab.tab_id);
  if (!left.length) closeTab(s, tab.tab_id);
  else if (tab.active_pane_id === paneId) tab.active_pane_id = left[0]!.pane_id;
  return true;
}

export function closeTab(s: FakeState, tabId: string): boolean {
  const tab = s.tabs.find((t) => t.tab_id === tabId);
  if (!tab) return false;
  for (const p of s.panes.filter((x) => x.tab_id === tabId)) removeAgent(s, p);
  s.panes = s.panes.filter((p) => p.tab_id !== tabId);
  s.tabs = s.tabs.filter((t) => t !== tab);
  const ws = s.workspaces.find((w) => w.workspace_id === tab.workspace_id);
  if (!ws) return true;
  // Since 0.8.0 closing the last tab closes the workspace.
  const left = s.tabs.filter((t) => t.workspace_id === ws.workspace_id);
  if (!left.length) closeWorkspace(s, ws.workspace_id);
  else if (ws.active_tab_id === tabId) ws.active_tab_id = left[0]!.tab_id;
  return true;
}

export function closeWorkspace(s: FakeState, wsId: string): boolean {
  if (!s.workspaces.some((w) => w.workspace_id === wsId)) return false;
  for (const p of s.panes.filter((x) => x.workspace_id === wsId)) removeAgent(s, p);
  s.panes = s.panes.filter((p) => p.workspace_id !== wsId);
  s.tabs = s.tabs.filter((t) => t.workspace_id !== wsId);
  s.workspaces = s.workspaces.filter((w) => w.workspace_id !== wsId);
  if (s.focused_workspace_id === wsId) s.focused_workspace_id = s.workspaces[0]?.workspace_id ?? null;
  return true;
}

export function newPane(s: FakeState, ws: WorkspaceRec, tabId: string, cwd: string): PaneRec {
  const pane: PaneRec = {
    pane_id: `${ws.workspace_id}:p${encodeNumber(ws.next_pane++)}`,
    workspace_id: ws.workspace_id,
    tab_id: tabId,
    terminal_id: newTerminalId(),
    cwd,
    revision: 0,
    transcript: "",
    visible: null,
  };
  s.panes.push(pane);
  return pane;
}

export function newTab(s: FakeState, ws: WorkspaceRec, cwd: string, label?: string): { tab: TabRec; pane: PaneRec } {
  const tabId = `${ws.workspace_id}:t${encodeNumber(ws.next_tab++)}`;
  const number = s.tabs.filter((t) => t.workspace_id === ws.workspace_id).length + 1;
  const tab: TabRec = { tab_id: tabId, workspace_id: ws.workspace_id, label: label ?? String(number), active_pane_id: "" };
  s.tabs.push(tab);
  const pane = newPane(s, ws, tabId, cwd);
  tab.active_pane_id = pane.pane_id;
  return { tab, pane };
}

export function newWorkspace(s: FakeState, cwd: string, label?: string): { ws: WorkspaceRec; tab: TabRec; pane: PaneRec } {
  const id = `w${encodeNumber(s.next_workspace++)}`;
  const ws: WorkspaceRec = { workspace_id: id, label: label ?? id, cwd, active_tab_id: "", next_tab: 1, next_pane: 1 };
  s.workspaces.push(ws);
  const { tab, pane } = newTab(s, ws, cwd);
  ws.active_tab_id = tab.tab_id;
  // A server always shows some workspace; the first one becomes active.
  if (!s.focused_workspace_id) s.focused_workspace_id = id;
  return { ws, tab, pane };
}

// Test-side control of the fake herdr's server: its stop (and the moment it is stopping), its
// restart over the same layout, and the programs its panes run.
import { editState, type FakeHerdrRef } from "./herdr-records.ts";
import { findAgentPane, newTerminalId, removeAgent as removeAgentRec, type ProgramDef } from "./herdr-state.ts";

const edit = editState;

/**
 * `herdr server stop` under way: its panes' processes are going; the first call meanwhile fails
 * with `server_unavailable` ("server is shutting down"), the later ones, as its socket closes, with
 * a plain `Error: Os { ... ConnectionReset ... }` (exit 1), until `stopServer`.
 */
export function beginServerStop(ref: FakeHerdrRef): void {
  edit(ref, (s) => {
    Object.assign(s, { shutting_down: true, shutdown_answered: 0 });
    for (const p of s.panes) removeAgentRec(s, p);
  });
}

/** Stopping herdr's server kills every pane process, so by default all agents go with it. */
export function stopServer(ref: FakeHerdrRef, opts: { killAgents?: boolean } = {}): void {
  edit(ref, (s) => {
    s.server_running = false;
    s.shutting_down = false;
    if (opts.killAgents !== false) for (const p of s.panes) removeAgentRec(s, p);
  });
}

/**
 * A restart restores the layout (the same workspace, tab and pane ids and labels), each pane a
 * fresh shell: a new terminal id, an empty screen, no agent (names are gone with them).
 */
export function startServer(ref: FakeHerdrRef, opts: { restart?: boolean } = {}): void {
  edit(ref, (s) => {
    if (!s.server_running && opts.restart !== false) {
      for (const p of s.panes) {
        removeAgentRec(s, p);
        Object.assign(p, { terminal_id: newTerminalId(), transcript: "", visible: null, revision: 0 });
      }
    }
    s.server_running = true;
  });
}

/** The program every `agent start --kind <kind>` runs from now on (its screens and turns). */
export function setProgram(ref: FakeHerdrRef, kind: string, program: ProgramDef | null): void {
  edit(ref, (s) => {
    if (program) s.programs = { ...s.programs, [kind]: program };
    else delete s.programs[kind];
  });
}

/** The environment the agent's program got (only when the server's environment is modelled). */
export function agentEnv(ref: FakeHerdrRef, target: string): Record<string, string> | undefined {
  return edit(ref, (s) => findAgentPane(s, target)[0]?.agent?.env);
}

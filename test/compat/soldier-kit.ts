/**
 * Tmux soldiers for the state-hook compat tests: a real leased camp and a running task for each,
 * the real harness started in the camp in a pane of the world's tmux server with the launch
 * `stateHooks` gives (its files under a hooks dir outside the camp, a vx path holding a space and
 * a quote), and the trail of `states/<id>.json` as the test watches it.
 */
import { readSoldierState } from "../../src/state/soldier-state";
import type { HookedLaunch } from "../../src/harnesses/types";
import { isFunctionResult } from "./mock-gemini";
import { existsSync, mkdirSync, readdirSync, symlinkSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { acquireCamp } from "../../src/camps/pool";
import { realExec } from "../../src/exec";
import { stateHooks } from "../../src/harnesses/soldier-hooks";
import { newTaskId } from "../../src/state/ids";
import { type ProjectPaths, projectPaths } from "../../src/state/paths";
import { ensureProjectRecord } from "../../src/state/project-record";
import type { SoldierState, Task } from "../../src/state/schemas";
import { createTask } from "../../src/state/tasks";
import { VX_BIN, git, waitFor } from "../helpers";
import type { HarnessName } from "./harnesses";
import type { LoggedRequest, Reply } from "./mock-models";
import { type World, screenShows } from "./world";

export type Camp = { id: string; path: string; paths: ProjectPaths };
export type Seen = SoldierState & { seen: number };
export type Soldier = Camp & { pane: string; hooksDir: string; launch: HookedLaunch; trail: Seen[]; stop(): void };

/** The world's vx reached through a directory whose name holds a space and a single quote. */
export function oddVx(w: World): string {
  const path = join(w.home, "vx bin'dir", "vx");
  if (!existsSync(path)) {
    mkdirSync(dirname(path), { recursive: true });
    symlinkSync(VX_BIN, path);
  }
  return path;
}

/** Commits what `vx init` wrote, as a user would, so every camp holds the commander's scaffold. */
export function commitInit(w: World): void {
  git(w.project, "add", "-A");
  git(w.project, "commit", "-q", "-m", "vx init");
}

/** A camp leased through the real pool and a `running` tmux task holding it. */
export async function leaseCamp(w: World, harness: HarnessName): Promise<Camp> {
  const paths = projectPaths(w.root, w.project);
  ensureProjectRecord(paths);
  const id = newTaskId();
  const camp = await acquireCamp(paths, { project: w.project, taskId: id, base: "main", exec: realExec });
  const at = new Date().toISOString();
  const task: Task = {
    id,
    schema_version: 1,
    kind: "mission",
    prompt: "compat soldier",
    status: "running",
    created_at: at,
    updated_at: at,
    camp_slot: camp.slot,
    camp_path: camp.path,
    camp_branch: camp.branch,
    camp_base: "main",
    backend: "tmux",
    tmux_target: `vx-${id.slice(0, 8)}`,
    harness,
  };
  await createTask(paths, task);
  return { id, path: camp.path, paths };
}

/**
 * Writes the launch's files and starts the harness in the camp with its args and env (herdr's
 * variables removed: a tmux soldier is not in a herdr pane). Watches the state file every 25 ms.
 */
export function startSoldier(w: World, camp: Camp, harness: HarnessName, args: string[]): Soldier {
  const hooksDir = join(w.home, "hooks d'ir", camp.id);
  const launch = stateHooks(harness, { vx: oddVx(w), taskId: camp.id, hooksDir });
  for (const f of launch.files) {
    mkdirSync(dirname(f.path), { recursive: true });
    writeFileSync(f.path, f.content);
  }
  const pane = `${harness}-${camp.id.slice(0, 6)}`;
  const env = Object.entries(launch.env).map(([k, v]) => `${k}=${v}`);
  w.tmux.start(pane, ["env", "-u", "HERDR_WORKSPACE_ID", "-u", "HERDR_PANE_ID", ...env, w.exe, ...args, ...launch.args], camp.path);
  const trail: Seen[] = [];
  const timer = setInterval(() => {
    const s = readSoldierState(camp.paths, camp.id);
    const last = trail.at(-1);
    if (s && (s.at !== last?.at || s.state !== last?.state)) trail.push({ ...s, seen: Date.now() });
  }, 25);
  return { ...camp, pane, hooksDir, launch, trail, stop: () => clearInterval(timer) };
}

/** The states reported from trail entry `from` on, repeats folded (Claude Code reports a dialog twice). */
export function statesOf(s: Soldier, from = 0): string[] {
  return s.trail
    .slice(from)
    .map((e) => e.state)
    .filter((st, i, all) => i === 0 || all[i - 1] !== st);
}

/** The first report of `state` from trail entry `from` on. */
export function waitState(s: Soldier, state: string, from: number, timeoutMs = 60_000): Promise<Seen> {
  return waitFor(() => s.trail.find((e, i) => i >= from && e.state === state), timeoutMs, `state ${state} in ${JSON.stringify(statesOf(s, from))}`);
}

/** Nothing in the camp changed, untracked or ignored files included. */
export function campStatus(s: Camp): string {
  return git(s.path, "status", "--porcelain", "--untracked-files=all", "--ignored");
}

/** Only the files vx wrote are in the hooks dir (no harness installed anything beside them). */
export function hooksDirFiles(s: Soldier): string[] {
  return existsSync(s.hooksDir) ? readdirSync(s.hooksDir).sort() : [];
}

/** Pastes the prompt as one message, submits it once it shows, and returns the model request it made. */
export async function submit(w: World, s: Soldier, prompt: string, mine: (r: LoggedRequest) => boolean): Promise<LoggedRequest> {
  w.tmux.paste(s.pane, prompt);
  await screenShows(w, s.pane, new RegExp(prompt));
  w.tmux.keys(s.pane, "Enter");
  return waitFor(() => w.models.turns().find(mine), 90_000, `the model request for "${prompt}"`);
}

/** Whether a request carries a tool's result (the turn after a tool call), per protocol. */
export function isToolResult(r: LoggedRequest): boolean {
  const body = (r.body ?? {}) as { messages?: { role?: string; content?: unknown }[]; input?: { type?: string }[] };
  if (r.protocol === "responses") return body.input?.at(-1)?.type === "function_call_output";
  if (r.protocol === "gemini") return isFunctionResult(r);
  const last = body.messages?.at(-1);
  if (r.protocol === "chat") return last?.role === "tool";
  return Array.isArray(last?.content) && (last.content as { type?: string }[]).some((c) => c.type === "tool_result");
}

/** The reply a held turn ends with, sent `holdMs` after its request. */
export const held = (holdMs: number): Reply => ({ text: "all done", delayMs: holdMs });

/**
 * Answers the open permission dialog with Enter (its first option allows once). A key pressed as
 * the dialog is drawn can be dropped, so Enter goes again every 3 s while the dialog still shows.
 */
export async function allowOnce(w: World, s: Soldier, dialog: RegExp, from: number): Promise<Seen> {
  let pressed = 0;
  return waitFor(
    () => {
      const back = s.trail.find((e, i) => i >= from && e.state === "working");
      if (back) return back;
      if (Date.now() - pressed >= 3000 && dialog.test(w.tmux.screen(s.pane))) {
        w.tmux.keys(s.pane, "Enter");
        pressed = Date.now();
      }
      return undefined;
    },
    60_000,
    `working after the dialog was answered, in ${JSON.stringify(statesOf(s, from))}`,
  );
}

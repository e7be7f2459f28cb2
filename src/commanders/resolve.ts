/**
 * Who is giving the order (CMDR-01..04): the commander's herdr pane, the project whose wake queue
 * its hook drains, and its entry in that project's `commanders.json`. Dispatch, redispatch,
 * prompt and decide record it so the commander that sent the latest instruction is woken next.
 */
import type { AgentInfo } from "../backends/agents";
import { liveAwaiters } from "../awaiters/registry";
import { herdrOps } from "../backends/herdr/ops";
import type { Deps } from "../deps";
import { errorMessage } from "../errors";
import { HARNESSES, type HarnessName } from "../harnesses";
import { ensureStateDir } from "../state/files";
import { withLock } from "../state/lock";
import { type ProjectPaths, gitToplevel, isUnder, projectPaths, rootPaths } from "../state/paths";
import { ensureProjectRecord } from "../state/project-record";
import { loadRecord, mergeForSave, saveRecord } from "../state/record";
import { CommanderSchema, CommandersSchema, SCHEMA_VERSION, type Task, keysOf } from "../state/schemas";
import { isoTime } from "../time";
import { identifyTmuxCommander } from "../backends/tmux/commander";

/** The calling commander, as far as it could be resolved from `HERDR_PANE_ID`. */
export type Commander = {
  /** `HERDR_PANE_ID`. */
  pane: string;
  /** The project whose queue its hook drains; undefined when it could not be resolved. */
  project?: string;
  /** herdr's kind label for the pane's agent (`claude`, `pi`, `opencode`, ...). */
  harness?: string;
  workspace?: string;
  /** CMDR-09: the Codex thread the command was run from, and the Codex home it lives in. */
  codexThread?: string;
  codexHome?: string;
};

const ENTRY_KEYS = keysOf(CommanderSchema);
const FILE_KEYS = keysOf(CommandersSchema);

async function paneAgent(deps: Deps, pane: string): Promise<AgentInfo | undefined> {
  try {
    return await herdrOps(deps).herdr.agentGet(pane);
  } catch {
    return undefined;
  }
}

/**
 * CMDR-02: the project of a live, verified awaiter registered from this pane (exactly the queue
 * its hook reads); otherwise the git toplevel of the cwd herdr reports for the pane's agent;
 * otherwise none. Undefined when `HERDR_PANE_ID` is unset: nothing is recorded then.
 */
export async function resolveCommander(deps: Deps, root: string): Promise<Commander | undefined> {
  const pane = deps.env.HERDR_PANE_ID;
  if (!pane) return undefined;
  const agent = await paneAgent(deps, pane);
  const awaiter = (await liveAwaiters(rootPaths(root).awaitersDir, deps.exec)).find((a) => a.rec.herdr_pane_id === pane);
  let project = awaiter?.rec.project_path;
  if (!project && agent?.cwd) {
    // The commander's own environment is not ours: no GIT_DIR of this process may redirect it.
    const top = await gitToplevel(agent.cwd, deps.exec, {});
    // A camp is never a commander's project: its wakes would go to a queue nobody reads.
    if (top && !isUnder(top, root)) project = top;
  }
  return {
    pane,
    project,
    harness: agent?.agent || undefined,
    workspace: agent?.workspace_id || deps.env.HERDR_WORKSPACE_ID,
    // Codex gives every command it runs its own thread id: the pane's session, not the newest one.
    codexThread: deps.env.CODEX_THREAD_ID || undefined,
    codexHome: deps.env.CODEX_HOME || undefined,
  };
}

/** The task fields of CMDR-01; empty outside a herdr pane (nothing is recorded). */
export function commanderFields(c: Commander | undefined): Partial<Task> {
  if (!c) return {};
  return { commander_project: c.project, commander_pane: c.pane };
}

function isObject(x: unknown): x is Record<string, unknown> {
  return typeof x === "object" && x !== null && !Array.isArray(x);
}

/**
 * CMDR-03: records the commander in `commanders.json` of its project's state dir, keyed by the
 * kind label herdr reports. Other entries, and unknown fields in and around them, are kept.
 * Does nothing when the project or the kind is unknown.
 */
export async function recordCommander(root: string, c: Commander, now: number): Promise<void> {
  if (!c.project || !c.harness) return;
  await saveCommanderEntry(root, c.project, c.harness, {
    herdr_pane_id: c.pane,
    herdr_workspace_id: c.workspace,
    project_path: c.project,
    registered_at: isoTime(now),
    ...queueThread(c.harness, c.codexThread, c.codexHome),
  });
}

/** CMDR-09: the thread (and its home) a `queue` wake is sent into, recorded for such a harness only. */
function queueThread(harness: string, thread: string | undefined, home: string | undefined): Record<string, string | undefined> {
  return HARNESSES[harness as HarnessName]?.commander.wake.kind === "queue" && thread ? { codex_thread_id: thread, codex_home: home } : {};
}

/** Writes one harness's entry into the project's `commanders.json`, keeping everything else. */
async function saveCommanderEntry(root: string, project: string, harness: string, entry: Record<string, unknown>): Promise<void> {
  const paths = projectPaths(root, project);
  ensureStateDir(root, paths.stateDir);
  ensureProjectRecord(paths);
  await withLock(paths.commandersLock, () => {
    const loaded = loadRecord(paths.commandersFile, CommandersSchema, true);
    const onDisk = loaded?.raw.commanders;
    const raw = isObject(onDisk) ? onDisk : {};
    const previous = raw[harness];
    // A fresh registration replaces where the commander is (herdr or tmux); unknown fields stay.
    const commanders = { ...raw, [harness]: mergeForSave(entry, ENTRY_KEYS, isObject(previous) ? previous : undefined) };
    saveRecord(root, paths.commandersFile, { schema_version: SCHEMA_VERSION, commanders }, FILE_KEYS);
  });
}

/**
 * CMDR-10: outside herdr, a hook-less commander (Codex, OpenCode) running vx from a plain tmux
 * pane is recorded with its pane, its server and its own pid, so the sentinel can wake it.
 */
async function noteTmuxCommander(deps: Deps, root: string, paths: ProjectPaths): Promise<void> {
  const found = await identifyTmuxCommander(deps.env, deps.ppid(), deps.exec);
  if (!found) return;
  await saveCommanderEntry(root, paths.project, found.harness, {
    project_path: paths.project,
    registered_at: isoTime(deps.clock.now()),
    ...queueThread(found.harness, deps.env.CODEX_THREAD_ID, deps.env.CODEX_HOME || undefined),
    tmux_pane: found.pane,
    tmux_socket: found.socket,
    pid: found.pid,
  });
}

/** CMDR-04, printed by dispatch when the commander works in another project. */
function commanderWarning(commanderProject: string, project: string): string {
  return `vx: warning: this commander works in ${commanderProject}, not ${project} - the sentinel wakes it there, but run vx status, land, strike and prompt for this soldier from ${project}\n`;
}

/**
 * Resolves and records the calling commander for a command on `paths`' project; a failure to
 * record is a warning, never a failed command. Returns the task fields to save.
 */
export async function noteCommander(deps: Deps, root: string, paths: ProjectPaths, opts: { warnOtherProject?: boolean } = {}): Promise<Partial<Task>> {
  const c = await resolveCommander(deps, root);
  if (!c) {
    try {
      await noteTmuxCommander(deps, root, paths);
    } catch (err) {
      deps.stderr.write(`vx: warning: could not record the commander in commanders.json: ${errorMessage(err)}\n`);
    }
    return {};
  }
  try {
    await recordCommander(root, c, deps.clock.now());
  } catch (err) {
    deps.stderr.write(`vx: warning: could not record the commander in commanders.json: ${errorMessage(err)}\n`);
  }
  if (opts.warnOtherProject && c.project && c.project !== paths.project) {
    deps.stderr.write(commanderWarning(c.project, paths.project));
  }
  return commanderFields(c);
}

/**
 * Who is giving the order (CMDR-01..04): the commander's pane as its backend finds it, the project
 * whose wake queue its hook drains, and its entry in that project's `commanders.json`. Dispatch,
 * redispatch, prompt and decide record it so the commander that sent the latest instruction is woken next.
 */
import { ALL_BACKENDS, type CallingCommander } from "../backends";
import { liveAwaiters } from "../awaiters/registry";
import type { Deps } from "../deps";
import { errorMessage } from "../errors";
import { HARNESSES, type HarnessName } from "../harnesses";
import { ensureStateDir } from "../state/files";
import { withLock } from "../state/lock";
import { type ProjectPaths, projectPaths, rootPaths } from "../state/paths";
import { ensureProjectRecord } from "../state/project-record";
import { loadRecord, mergeForSave, saveRecord } from "../state/record";
import { CommanderSchema, CommandersSchema, SCHEMA_VERSION, type Task, keysOf } from "../state/schemas";
import { isoTime } from "../time";

/** The calling commander as its backend found it, with the Codex thread it ran vx from (CMDR-09). */
export type Commander = CallingCommander & { codexThread?: string; codexHome?: string };

const ENTRY_KEYS = keysOf(CommanderSchema);
const FILE_KEYS = keysOf(CommandersSchema);

/**
 * The commander running this vx: the first backend (in registry order) that finds it in one of its
 * panes (CMDR-02: herdr by `HERDR_PANE_ID`, then a plain tmux pane, CMDR-10); undefined outside any.
 * `project` is the command's project (where a commander without a queue of its own is recorded).
 */
export async function resolveCommander(deps: Deps, root: string, project = ""): Promise<Commander | undefined> {
  const ctx = { root, project, awaiters: async () => (await liveAwaiters(rootPaths(root).awaitersDir, deps.exec)).map((a) => a.rec) };
  for (const b of ALL_BACKENDS) {
    const c = await b.callingCommander(deps, ctx);
    // Codex gives every command it runs its own thread id: the pane's session, not the newest one.
    if (c) return { ...c, codexThread: deps.env.CODEX_THREAD_ID || undefined, codexHome: deps.env.CODEX_HOME || undefined };
  }
  return undefined;
}

/** The task fields of CMDR-01; empty when no commander that marks tasks was found. */
export function commanderFields(c: Commander | undefined): Partial<Task> {
  if (!c?.marksTasks) return {};
  return { commander_project: c.project, commander_pane: c.pane };
}

function isObject(x: unknown): x is Record<string, unknown> {
  return typeof x === "object" && x !== null && !Array.isArray(x);
}

/**
 * CMDR-03: records the commander in `commanders.json` of its project's state dir, keyed by its
 * kind label. Other entries, and unknown fields in and around them, are kept.
 * Does nothing when the project or the kind is unknown.
 */
export async function recordCommander(root: string, c: Commander, now: number): Promise<void> {
  if (!c.project || !c.harness) return;
  await saveCommanderEntry(root, c.project, c.harness, {
    ...c.entry,
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

/** CMDR-04, printed by dispatch when the commander works in another project. */
function commanderWarning(commanderProject: string, project: string): string {
  return `vx: warning: this commander works in ${commanderProject}, not ${project} - the sentinel wakes it there, but run vx status, land, strike and prompt for this soldier from ${project}\n`;
}

/**
 * Resolves and records the calling commander for a command on `paths`' project; a failure to
 * record is a warning, never a failed command. Returns the task fields to save.
 */
export async function noteCommander(deps: Deps, root: string, paths: ProjectPaths, opts: { warnOtherProject?: boolean } = {}): Promise<Partial<Task>> {
  let c: Commander | undefined;
  try {
    c = await resolveCommander(deps, root, paths.project);
  } catch (err) {
    deps.stderr.write(`vx: warning: could not record the commander in commanders.json: ${errorMessage(err)}\n`);
  }
  if (!c) return {};
  try {
    await recordCommander(root, c, deps.clock.now());
  } catch (err) {
    deps.stderr.write(`vx: warning: could not record the commander in commanders.json: ${errorMessage(err)}\n`);
  }
  if (opts.warnOtherProject && c.marksTasks && c.project && c.project !== paths.project) {
    deps.stderr.write(commanderWarning(c.project, paths.project));
  }
  return commanderFields(c);
}

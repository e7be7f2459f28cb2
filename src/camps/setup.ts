// STA-10 camp setup between the lease and the soldier's pane: the `.worktreeinclude` copy, then `camp_setup`'s commands. A failure
// leaves the task `failed` with the redacted output tail and gives the camp back to the pool.
import { join } from "node:path";
import type { LaunchResult } from "../backends/terminal-types";
import { type CappedSink, cappedSink, drainBounded } from "../bounded-output";
import { childMark } from "../children";
import type { Deps } from "../deps";
import { errorMessage } from "../errors";
import { EXEC_CANNOT_RUN, EXEC_NOT_FOUND } from "../exec";
import { loadConfig } from "../project";
import { quotedWord } from "../printable";
import { redact } from "../redact";
import { markFailed } from "../state/mark-failed";
import { appendStateText, writeStateFile } from "../state/files";
import type { ProjectPaths } from "../state/paths";
import type { ProjectConfig, Task } from "../state/schemas";
import { COUNTS, DURATIONS, GUARDS, isoTime, timeScale, within } from "../time";
import { deleteBranch, pruneWorktrees, resetCamp } from "./git";
import { copyIncluded } from "./include";
import { assertCampOfPool, releaseLease } from "./pool";

/** `<state dir>/logs/<task-id>-setup.log`. */
function setupLogPath(paths: ProjectPaths, taskId: string): string {
  return join(paths.stateDir, "logs", `${taskId}-setup.log`);
}

/** An argv as a person reads it: plain words bare, anything else JSON-quoted. */
export function argvText(argv: string[]): string {
  return argv.map(quotedWord).join(" ");
}

/** Each command's nominal limit in seconds: `camp_setup_timeout`, else 10 minutes. */
export function setupTimeoutSeconds(config: Pick<ProjectConfig, "camp_setup_timeout"> | undefined): number {
  return config?.camp_setup_timeout ?? DURATIONS.campSetup / 1000;
}

function setupTimeoutMs(config: Pick<ProjectConfig, "camp_setup_timeout"> | undefined, env: Deps["env"]): number {
  return setupTimeoutSeconds(config) * 1000 * timeScale(env);
}

/** Why setup failed: the one line for stderr, and the output tail for the task. */
class SetupFailure extends Error {
  readonly tail: string;
  constructor(line: string, tail = "") {
    super(line);
    this.name = "SetupFailure";
    this.tail = tail;
  }
}

/** The last lines of both streams, stdout's first, as a failure's tail for the task. */
function tailOf(stdout: string, stderr: string): string {
  const lines = `${stdout}\n${stderr}`.split("\n").filter((l) => l.trim() !== "");
  return lines.slice(-COUNTS.campSetupTailLines).join("\n");
}

/** What one command did: its exit, whether the limit killed it, the tail of its output and its last stderr line. */
type SetupRun = { code: number; timedOut: boolean; tail: string; lastStderr: string };
/** Runs one command; its output goes to `sink` as it comes (up to the sink's cap), never held whole. */
type SetupRunner = (argv: string[], opts: { cwd: string; env: Deps["env"]; timeoutMs: number; sink: CappedSink }) => Promise<SetupRun>;

/**
 * Runs in its own process group with a child mark: past `timeoutMs` the group is killed, and after exit every marked process (a
 * forked server, one that called setsid): one holding the output would hold the task lock and lease for good.
 */
const realSetupRunner: SetupRunner = async (argv, opts) => {
  let proc: Bun.Subprocess<"ignore", "pipe", "pipe">;
  const mark = childMark();
  try {
    const env = { ...(opts.env as Record<string, string>), ...mark.env };
    proc = Bun.spawn(argv, { cwd: opts.cwd, env, stdin: "ignore", stdout: "pipe", stderr: "pipe", detached: true });
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code === "ENOENT" ? EXEC_NOT_FOUND : EXEC_CANNOT_RUN;
    opts.sink.write(`${errorMessage(err)}\n`);
    return { code, timedOut: false, tail: errorMessage(err), lastStderr: errorMessage(err) };
  }
  const killGroup = () => {
    try {
      process.kill(-proc.pid, "SIGKILL");
    } catch {
      // The group is empty already.
    }
  };
  let timedOut = false;
  const timer = setTimeout(() => {
    // Only while our child is not reaped: its pid, and so its group id, is still ours.
    if (proc.exitCode !== null || proc.signalCode !== null) return;
    timedOut = true;
    killGroup();
  }, opts.timeoutMs);
  const stdout = drainBounded(proc.stdout, { tailLines: COUNTS.campSetupTailLines, sink: opts.sink });
  const stderr = drainBounded(proc.stderr, { tailLines: COUNTS.campSetupTailLines, sink: opts.sink });
  const code = await proc.exited;
  clearTimeout(timer);
  // Its group id may be reused from here on; its mark never is.
  await mark.sweep();
  await within(Promise.all([stdout.done, stderr.done]), GUARDS.campSetupOutput);
  // A holder the sweep could not reach (it cleared its environment) must not keep vx alive either.
  await Promise.all([stdout.stop(), stderr.stop()]);
  const errTail = stderr.tail();
  return { code, timedOut, tail: tailOf(stdout.tail(), errTail), lastStderr: errTail.slice(errTail.lastIndexOf("\n") + 1) };
};

/** Copies the included files and runs the setup commands, logging both; SetupFailure on the first failure. */
async function setUpCamp(deps: Deps, paths: ProjectPaths, task: Task, config: ProjectConfig | undefined, run: SetupRunner = realSetupRunner): Promise<void> {
  const camp = task.camp_path ?? "";
  const log = setupLogPath(paths, task.id);
  writeStateFile(paths.root, log, `camp setup for task ${task.id} in ${quotedWord(camp)} at ${isoTime(deps.clock.now())}\n`);
  // Setup output is a likely place for tokens (`npm config list`, a printed .env): section 15.
  const note = (text: string) => appendStateText(log, `${redact(text)}\n`);
  let copied: Awaited<ReturnType<typeof copyIncluded>>;
  try {
    copied = await copyIncluded(paths.project, camp, deps.exec);
  } catch (err) {
    note(`.worktreeinclude: ${errorMessage(err)}`);
    throw new SetupFailure(`camp setup failed: ${errorMessage(err)}`);
  }
  // One name a line, redacted alone: a name that looks like a secret hides itself, never the reason beside it.
  const name = (p: string) => redact(quotedWord(p));
  for (const p of copied.copied) appendStateText(log, `copied ${name(p)}\n`);
  for (const s of copied.skipped) appendStateText(log, `skipped ${name(s.path)}: ${redact(s.why)}\n`);

  const timeoutMs = setupTimeoutMs(config, deps.env);
  const env = { ...deps.env, VX_TASK_ID: task.id, VX_CAMP: camp, VX_PROJECT: paths.project };
  for (const argv of config?.camp_setup ?? []) {
    note(`$ ${argvText(argv)}`);
    // Whole lines, redacted as they come, up to the cap per command (section 15).
    const sink = cappedSink((lines) => appendStateText(log, redact(lines)), COUNTS.campSetupLogBytes);
    const res = await run(argv, { cwd: camp, env, timeoutMs, sink });
    if (sink.dropped() > 0) note(`(${sink.dropped()} more bytes of output not logged: past the ${COUNTS.campSetupLogBytes / 1024 / 1024} MiB cap)`);
    note(res.timedOut ? "timed out: killed with everything it started" : `exited ${res.code}`);
    if (res.code === 0 && !res.timedOut) continue;
    if (res.timedOut) {
      throw new SetupFailure(`camp setup failed: ${argvText(argv)} timed out after ${setupTimeoutSeconds(config)}s`, res.tail);
    }
    throw new SetupFailure(`camp setup failed: ${argvText(argv)} exited ${res.code}: ${redact(res.lastStderr) || "(no stderr)"}`, res.tail);
  }
}

/** Reset to base (copied ignored files stay), branch deleted, lease cleared; problems are warnings: a camp left leased can still be struck. */
async function returnCamp(deps: Deps, paths: ProjectPaths, task: Task): Promise<void> {
  const warn = (text: string) => deps.stderr.write(`vx: warning: ${text}\n`);
  try {
    if (task.camp_path && task.camp_base && task.camp_slot !== undefined) {
      await assertCampOfPool(paths, { taskId: task.id, slot: task.camp_slot, path: task.camp_path }, deps.exec);
      await resetCamp(task.camp_path, task.camp_base, deps.exec);
    }
    await releaseLease(paths, task.id);
  } catch (err) {
    warn(`the camp of task ${task.id} was not returned to the pool (${errorMessage(err)}) - strike it with 'vx strike --discard ${task.id}'`);
    return;
  }
  const branch = task.camp_branch;
  if (branch) {
    await pruneWorktrees(paths.project, deps.exec).catch(() => undefined);
    const res = await deleteBranch(paths.project, branch, { force: true }, deps.exec).catch((err: unknown) => ({ deleted: false as const, reason: errorMessage(err) }));
    if (!res.deleted && !res.reason.endsWith("does not exist")) warn(`kept branch ${branch}: ${res.reason}`);
  }
}

/** Camp setup, then `launch`; on failure the task is saved `failed` (guarded on the state it was decided on) and its camp returned. */
export async function launchAfterSetup(deps: Deps, paths: ProjectPaths, pending: Task, launch: (t: Task) => Promise<LaunchResult>): Promise<LaunchResult> {
  let config: ProjectConfig | undefined;
  try {
    config = loadConfig(paths.project);
    await setUpCamp(deps, paths, pending, config);
  } catch (err) {
    const failure = err instanceof SetupFailure ? err : new SetupFailure(`camp setup failed: ${errorMessage(err)}`);
    const saved = await markFailed(paths, pending, failure.message, deps.clock.now(), {
      more: `setup log: ${setupLogPath(paths, pending.id)}`,
      body: failure.tail ? redact(failure.tail) : undefined,
    });
    if (!saved.written) {
      return { task: saved.task, error: `task ${pending.id} changed during its camp setup (it is now ${saved.task.status})` };
    }
    await returnCamp(deps, paths, saved.task);
    return { task: saved.task, error: failure.message };
  }
  return launch(pending);
}

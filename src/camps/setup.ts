/**
 * STA-10 camp setup, run between the lease (task saved `pending`) and the soldier's pane, for
 * either backend: the `.worktreeinclude` copy (`include.ts`), then config.json's `camp_setup`
 * commands in the camp. A failure leaves the task `failed` with the redacted output tail, gives
 * the camp back to the pool (reset to base, branch deleted, lease cleared) and is said in one line.
 */
import { join } from "node:path";
import type { Deps } from "../deps";
import { errorMessage } from "../errors";
import { EXEC_CANNOT_RUN, EXEC_NOT_FOUND } from "../exec";
import { loadConfig } from "../project";
import { quotedWord } from "../printable";
import { redact } from "../redact";
import type { LaunchResult } from "../soldiers/launch";
import { markFailed } from "../state/mark-failed";
import { appendStateText, writeStateFile } from "../state/files";
import type { ProjectPaths } from "../state/paths";
import type { ProjectConfig, Task } from "../state/schemas";
import { COUNTS, DURATIONS, GUARDS, isoTime, timeScale } from "../time";
import { deleteBranch, lastLine, pruneWorktrees, resetCamp } from "./git";
import { copyIncluded } from "./include";
import { assertCampOfPool, releaseLease } from "./pool";

/** `<state dir>/logs/<task-id>-setup.log`. */
export function setupLogPath(paths: ProjectPaths, taskId: string): string {
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

/** The same limit in milliseconds, scaled by VX_TIME_SCALE like every duration. */
export function setupTimeoutMs(config: Pick<ProjectConfig, "camp_setup_timeout"> | undefined, env: Deps["env"]): number {
  return setupTimeoutSeconds(config) * 1000 * timeScale(env);
}

/** Why setup failed: the one line for stderr, and the output tail for the task. */
export class SetupFailure extends Error {
  readonly tail: string;
  constructor(line: string, tail = "") {
    super(line);
    this.name = "SetupFailure";
    this.tail = tail;
  }
}

function tailOf(stdout: string, stderr: string): string {
  const lines = `${stdout.replace(/\s+$/, "")}\n${stderr.replace(/\s+$/, "")}`.split("\n").filter((l) => l.trim() !== "");
  return lines.slice(-COUNTS.campSetupTailLines).join("\n");
}

export type SetupRun = { code: number; stdout: string; stderr: string; timedOut: boolean };
export type SetupRunner = (argv: string[], opts: { cwd: string; env: Deps["env"]; timeoutMs: number }) => Promise<SetupRun>;

/**
 * Runs one setup command in its own process group, so that what it starts goes with it: past
 * `timeoutMs` the whole group is killed, and once the command has exited its output is read only
 * for GUARDS.campSetupOutput more. A child it left in the background holding the output open (a
 * forked server, a postinstall daemon) is killed with the group then: leftovers are not wanted
 * in a camp, and waiting for them would hold the task lock and the lease for good.
 */
export const realSetupRunner: SetupRunner = async (argv, opts) => {
  let proc: Bun.Subprocess<"ignore", "pipe", "pipe">;
  try {
    proc = Bun.spawn(argv, { cwd: opts.cwd, env: opts.env as Record<string, string>, stdin: "ignore", stdout: "pipe", stderr: "pipe", detached: true });
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code === "ENOENT" ? EXEC_NOT_FOUND : EXEC_CANNOT_RUN;
    return { code, stdout: "", stderr: errorMessage(err), timedOut: false };
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
  const stdout = collect(proc.stdout);
  const stderr = collect(proc.stderr);
  const code = await proc.exited;
  clearTimeout(timer);
  const both = Promise.all([stdout.done, stderr.done]);
  const closed = await within(both, GUARDS.campSetupOutput);
  if (!closed) {
    // Something the command started still holds its output: a member of its group (which keeps
    // the group id from being reused while it lives), unless the timeout killed that group already.
    if (!timedOut) killGroup();
    await within(both, GUARDS.campSetupOutput);
  }
  // A holder that left the group (setsid) must not keep vx itself alive either.
  await Promise.all([stdout.stop(), stderr.stop()]);
  return { code, stdout: stdout.text(), stderr: stderr.text(), timedOut };
};

/** Whether `p` settles within `ms`; the timer goes either way, so it never holds vx's exit. */
function within(p: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<boolean>((res) => {
    timer = setTimeout(() => res(false), ms);
  });
  return Promise.race([p.then(() => true), late]).finally(() => clearTimeout(timer));
}

/** Reads a stream as it comes, so what arrived can be taken and the rest given up. */
function collect(stream: ReadableStream<Uint8Array>): { done: Promise<void>; text(): string; stop(): Promise<void> } {
  const reader = stream.getReader();
  const chunks: Uint8Array[] = [];
  const done = (async () => {
    try {
      for (;;) {
        const r = await reader.read();
        if (r.done) return;
        chunks.push(r.value);
      }
    } catch {
      // Cancelled, or the pipe failed: what arrived is kept.
    }
  })();
  return { done, text: () => Buffer.concat(chunks).toString("utf8"), stop: () => reader.cancel().catch(() => undefined) };
}

/**
 * Copies the included files and runs the setup commands for `task` in its camp, logging both.
 * Throws SetupFailure on the first thing that fails.
 */
export async function setUpCamp(deps: Deps, paths: ProjectPaths, task: Task, config: ProjectConfig | undefined, run: SetupRunner = realSetupRunner): Promise<void> {
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
  // Each name on one line, redacted on its own: a name that looks like a secret hides itself,
  // never the reason beside it.
  const name = (p: string) => redact(quotedWord(p));
  for (const p of copied.copied) appendStateText(log, `copied ${name(p)}\n`);
  for (const s of copied.skipped) appendStateText(log, `skipped ${name(s.path)}: ${redact(s.why)}\n`);

  const timeoutMs = setupTimeoutMs(config, deps.env);
  const env = { ...deps.env, VX_TASK_ID: task.id, VX_CAMP: camp, VX_PROJECT: paths.project };
  for (const argv of config?.camp_setup ?? []) {
    note(`$ ${argvText(argv)}`);
    const res = await run(argv, { cwd: camp, env, timeoutMs });
    if (res.stdout) note(res.stdout.replace(/\n$/, ""));
    if (res.stderr) note(res.stderr.replace(/\n$/, ""));
    note(res.timedOut ? "timed out: killed with everything it started" : `exited ${res.code}`);
    if (res.code === 0 && !res.timedOut) continue;
    const tail = tailOf(res.stdout, res.stderr);
    if (res.timedOut) {
      throw new SetupFailure(`camp setup failed: ${argvText(argv)} timed out after ${setupTimeoutSeconds(config)}s`, tail);
    }
    throw new SetupFailure(`camp setup failed: ${argvText(argv)} exited ${res.code}: ${redact(lastLine(res.stderr)) || "(no stderr)"}`, tail);
  }
}

/**
 * Hands the camp back: reset to its base (ignored files such as the copied `.env` stay, as for
 * any idle camp), its fresh branch deleted, the lease cleared. Problems are warnings: the task is
 * failed either way, and a camp left leased can still be struck.
 */
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

/**
 * Runs camp setup for a `pending` task, then `launch` when it succeeded. On failure the task is
 * saved `failed` (guarded on the state it was decided on) and its camp returned.
 */
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

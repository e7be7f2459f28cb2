/**
 * `vx wait` (WAIT-01..05): a read-only waiter for one soldier. It polls the task file (and watches
 * the tasks directory so a change is seen before the next poll), prints one event line per
 * observation, and ends with the exit code of how the task ended. It never writes task state,
 * wakes or keys: the sentinel stays the single writer, so any number of waiters can watch.
 */
import { closeSync, openSync, writeSync } from "node:fs";
import { resolve } from "node:path";
import { createWaker } from "../awaiters/waker";
import { soldierTerminal } from "./terminal";
import type { Deps } from "../deps";
import { EXIT, UsageError, VxError, errorMessage } from "../errors";
import { openProject } from "../project";
import { redact } from "../redact";
import { ensureSentinel } from "../sentinel/ensure";
import { reportPath } from "../lifecycle/observe";
import { assertTaskRef } from "../state/ids";
import type { ProjectPaths } from "../state/paths";
import type { Task, TaskStatus } from "../state/schemas";
import { loadTask, noTask, resolveTaskRef } from "../state/tasks";
import { COUNTS, scaled } from "../time";

/** What one `vx wait` run needs, already validated. Durations in milliseconds. */
export type WaitOptions = {
  taskId: string;
  pollMs: number;
  maxWaitMs: number;
  /** Absolute path of the log file, or undefined for none. */
  logFile?: string;
  /** 0 disables the pane tail. */
  paneTailLines: number;
};

/** The flag values as given on the command line (undefined when absent). */
type WaitFlags = {
  pollInterval?: string;
  maxWait?: string;
  logFile?: string;
  paneTailLines?: string;
};

const WAITING: ReadonlySet<TaskStatus> = new Set(["pending", "running"]);
const SUCCESS: ReadonlySet<TaskStatus> = new Set(["done", "shipped"]);
const NOTE_PREFIX = "[vexillum] ";

const DECIMAL = /^(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:e[-+]?[0-9]+)?$/i;

function positiveSeconds(flag: string, raw: string): number {
  const n = Number(raw);
  if (!DECIMAL.test(raw) || !Number.isFinite(n) || n <= 0) {
    throw new UsageError(`invalid --${flag} "${raw}": expected a positive number of seconds`, "wait");
  }
  return n * 1000;
}

function tailCount(raw: string): number {
  const n = Number(raw);
  if (!/^[0-9]+$/.test(raw) || !Number.isSafeInteger(n)) {
    throw new UsageError(`invalid --pane-tail-lines "${raw}": expected a non-negative integer`, "wait");
  }
  return n;
}

/**
 * WAIT-01 validation (every failure is a UsageError, exit 64). Defaults are built-in durations and
 * so are scaled by VX_TIME_SCALE; values given on the command line are taken as they are (ENV-07).
 * A relative log path is resolved against `cwd`.
 */
export function parseWaitOptions(positionals: string[], flags: WaitFlags, deps: Pick<Deps, "env" | "cwd">): WaitOptions {
  if (positionals.length === 0) throw new UsageError("missing task id", "wait");
  if (positionals.length > 1) throw new UsageError(`unexpected argument "${positionals[1]}"`, "wait");
  const pollMs = flags.pollInterval === undefined ? scaled("waitPoll", deps.env) : positiveSeconds("poll-interval", flags.pollInterval);
  const maxWaitMs = flags.maxWait === undefined ? scaled("waitMax", deps.env) : positiveSeconds("max-wait", flags.maxWait);
  const paneTailLines = flags.paneTailLines === undefined ? COUNTS.paneTailLines : tailCount(flags.paneTailLines);
  if (flags.logFile !== undefined && flags.logFile === "") throw new UsageError('invalid --log-file "": expected a path', "wait");
  const taskId = assertTaskRef(positionals[0], "wait");
  const logFile = flags.logFile === undefined ? undefined : resolve(deps.cwd, flags.logFile);
  return { taskId, pollMs, maxWaitMs, logFile, paneTailLines };
}

/** Milliseconds as seconds in the shortest decimal form (`5`, `0.05`, `7200`), at most 3 decimals. */
export function shortSeconds(ms: number): string {
  return String(Number((ms / 1000).toFixed(3)));
}

/** The last `[vexillum]` note when the output ends with one (TSK-07); undefined otherwise. */
export function endingNote(output: string | undefined): string | undefined {
  const lines = (output ?? "").trimEnd().split("\n");
  const last = lines[lines.length - 1]?.trim() ?? "";
  return last.startsWith(NOTE_PREFIX) ? last : undefined;
}

/**
 * The last `n` lines of `text` after redaction, trailing blank lines dropped. Redaction runs on
 * the whole text first so a private key block cut by the tail is still recognised.
 */
export function redactedTail(text: string, n: number): string[] {
  if (n <= 0) return [];
  const clean = redact(text).replace(/\s+$/, "");
  if (clean === "") return [];
  const lines = clean.split("\n");
  return lines.slice(Math.max(0, lines.length - n));
}

/** Where event lines go: stdout always, and the log file when one was given. */
type Sink = { line(text: string): void; close(): void };

function openSink(deps: Deps, logFile: string | undefined): Sink {
  let fd: number | undefined;
  if (logFile !== undefined) {
    try {
      fd = openSync(logFile, "a", 0o600);
    } catch (err) {
      // Node's message repeats the path after a comma; keep only the reason.
      throw new VxError(`cannot open log file ${logFile}: ${errorMessage(err).split(",")[0]}`);
    }
  }
  return {
    line(text) {
      deps.stdout.write(`${text}\n`);
      if (fd === undefined) return;
      try {
        writeSync(fd, `${text}\n`);
      } catch (err) {
        throw new VxError(`cannot write log file ${logFile}: ${errorMessage(err).split(",")[0]}`);
      }
    },
    close() {
      if (fd !== undefined) closeSync(fd);
      fd = undefined;
    },
  };
}

function mustLoad(paths: ProjectPaths, id: string): Task {
  const loaded = loadTask(paths, id);
  if (!loaded) throw noTask(id);
  return loaded.value;
}

/**
 * The pane text for the tail: the live transcript when the soldier's pane can be read, else the
 * recorded output; any read failure falls back to the record.
 */
async function paneText(deps: Deps, paths: ProjectPaths, task: Task, n: number): Promise<{ source: "live" | "recorded"; text: string }> {
  // A soldier on another machine has no pane here: its relayed output is what this machine knows (MCH-09).
  if (task.machine) return { source: "recorded", text: task.output ?? "" };
  try {
    return { source: "live", text: await soldierTerminal(deps, paths, task).transcript(task, n) };
  } catch {
    // Gone, busy, the backend missing or down: the recorded output is what is left.
    return { source: "recorded", text: task.output ?? "" };
  }
}

async function printTail(deps: Deps, paths: ProjectPaths, sink: Sink, task: Task, n: number): Promise<void> {
  if (n <= 0) return;
  const { source, text } = await paneText(deps, paths, task, n);
  const lines = redactedTail(text, n);
  sink.line(`VX_WAIT_PANE_TAIL: task=${task.id} lines=${lines.length} source=${source}`);
  for (const l of lines) sink.line(l);
}

async function finish(deps: Deps, sink: Sink, paths: ProjectPaths, task: Task, opts: WaitOptions): Promise<number> {
  if (task.status === "blocked" && task.decision) {
    sink.line(`VX_WAIT_QUESTION: ${redact(task.decision.question).replace(/\s+/g, " ").trim()}`);
  }
  const note = endingNote(task.output);
  if (note !== undefined) sink.line(`VX_WAIT_NOTE: ${redact(note)}`);
  if (task.kind === "scout" && task.status === "done") sink.line(`VX_WAIT_REPORT: ${reportPath(paths, task)}`);
  await printTail(deps, paths, sink, task, opts.paneTailLines);
  if (SUCCESS.has(task.status)) {
    sink.line(`VX_WAIT_DONE: task=${task.id} status=${task.status}`);
    return EXIT.ok;
  }
  sink.line(`VX_WAIT_TERMINAL: task=${task.id} status=${task.status}`);
  return EXIT.taskEndedBadly;
}

/**
 * Waits for task `opts.taskId` of the current project to leave `pending`/`running`, printing the
 * WAIT-03 event lines. Returns 0 (done, shipped), 2 (blocked, failed, interrupted, unconfirmed)
 * or 124 (max wait reached); throws VxError for `no task` and log file errors (exit 1).
 */
export async function waitForTask(deps: Deps, opts: WaitOptions): Promise<number> {
  const project = await openProject(deps);
  const paths = project.paths;
  opts = { ...opts, taskId: resolveTaskRef(paths, opts.taskId, "wait") };
  // An elapsed time inside this process: the monotonic clock (TIME-02).
  const started = deps.clock.monotonic();
  let task = mustLoad(paths, opts.taskId);
  const sink = openSink(deps, opts.logFile);
  const waker = createWaker([paths.tasksDir], deps.clock);
  try {
    sink.line(`VX_WAIT_START: task=${task.id} status=${task.status} poll=${shortSeconds(opts.pollMs)}s max_wait=${shortSeconds(opts.maxWaitMs)}s log=${opts.logFile ?? "-"}`);
    // A task already finished needs no sentinel: there is nothing left for it to settle.
    if (WAITING.has(task.status)) ensureSentinel(deps, project.root, { quiet: false });
    const never = new AbortController().signal;
    let last = task.status;
    for (;;) {
      if (!WAITING.has(task.status)) return await finish(deps, sink, paths, task, opts);
      const elapsed = deps.clock.monotonic() - started;
      if (elapsed >= opts.maxWaitMs) {
        await printTail(deps, paths, sink, task, opts.paneTailLines);
        sink.line(`VX_WAIT_TIMEOUT: ${shortSeconds(elapsed)}s max_wait=${shortSeconds(opts.maxWaitMs)}s task=${task.id}`);
        return EXIT.timeout;
      }
      await waker.wait(Math.min(opts.pollMs, opts.maxWaitMs - elapsed), never);
      task = mustLoad(paths, opts.taskId);
      if (task.status !== last) {
        sink.line(`VX_WAIT_STATUS: task=${task.id} status=${task.status}`);
        last = task.status;
      }
    }
  } finally {
    waker.close();
    sink.close();
  }
}

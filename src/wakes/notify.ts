/**
 * The general's ping (WAK-14): `config.json` `"notify"` run per wake that needs a person, reason text on
 * stdin. Never awaited by the pass, so a notifier cannot delay or change a wake; problems logged once.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { drainBounded } from "../bounded-output";
import { childMark } from "../children";
import { UsageError } from "../errors";
import { loadConfig } from "../project";
import { printable } from "../printable";
import type { Log } from "../sentinel/log";
import { errorText, foreign } from "../sentinel/log";
import { REMOTES_REL, isUnder } from "../state/paths";
import type { ForumWake, SoldierWake, TaskStatus } from "../state/schemas";
import { COUNTS, GUARDS, nominalSeconds, scaled, within } from "../time";
import { forumSection, reasonText } from "./reason";

const PINGED_STATUSES: readonly TaskStatus[] = ["done", "blocked", "interrupted", "unconfirmed"];

/** `home`: the project whose queue got it and whose config says what to run (WAK-02); `project`: the soldier's. */
export type WrittenWake = { kind: "soldier"; home: string; project: string; wake: SoldierWake } | { kind: "forum"; home: string; project: string; wake: ForumWake };

type Ping = { stdin: string; env: { VX_PROJECT: string; VX_TASK_ID: string; VX_NEW_STATUS: string } };

/** Absent (undefined, null) means none. */
export function parseNotify(value: unknown): { argv: string[] } | { error: string } | undefined {
  if (value === undefined || value === null) return undefined;
  const why = notifyProblem(value);
  return why ? { error: `"notify" ${why}, e.g. ["ntfy","publish","my-vx"]` } : { argv: value as string[] };
}

function notifyProblem(value: unknown): string | undefined {
  if (!Array.isArray(value) || value.length === 0 || !value.every((a) => typeof a === "string")) {
    return "is not an array of strings naming a program and its arguments";
  }
  if (value[0].trim() === "") return "names no program (its first element is empty)";
  // A NUL cannot reach argv: it would fail at every run.
  if (value.some((a) => a.includes("\0"))) return "has an argument with a NUL character";
  return undefined;
}

/** `vx init --notify`: a JSON array or words split on whitespace; never a shell string. */
export function notifyFromFlag(text: string): string[] {
  const how = `give a program and its arguments, e.g. --notify 'notify-send vx' or --notify '["ntfy","publish","my-vx"]'`;
  const t = text.trim();
  if (t === "") throw new UsageError(`--notify is empty - ${how}`, "init");
  let value: unknown;
  try {
    value = t.startsWith("[") ? JSON.parse(t) : t.split(/\s+/);
  } catch {
    throw new UsageError(`--notify '${printable(text)}' is not a JSON array of strings - ${how}`, "init");
  }
  const why = notifyProblem(value);
  if (why) throw new UsageError(`--notify '${printable(text)}' ${why} - ${how}`, "init");
  return value as string[];
}

export function pingFor(w: WrittenWake): Ping | undefined {
  if (w.kind === "forum") {
    return { stdin: `${forumSection([w.wake])}\n`, env: { VX_PROJECT: w.project, VX_TASK_ID: "", VX_NEW_STATUS: "forum" } };
  }
  if (!PINGED_STATUSES.includes(w.wake.new_status)) return undefined;
  return {
    stdin: `${reasonText([w.wake], [])}\n`,
    env: { VX_PROJECT: w.project, VX_TASK_ID: w.wake.task_id, VX_NEW_STATUS: w.wake.new_status },
  };
}

/** `kill` ends its process group. */
export type NotifierChild = { exited: Promise<{ code: number | null; signal: string | null; stderr: string }>; kill(): void };
/** No shell; throws (ENOENT for a missing program) when it cannot start. */
export type SpawnNotifier = (argv: string[], opts: { stdin: string; env: Record<string, string>; cwd: string }) => NotifierChild;
export type After = (ms: number, fn: () => void) => () => void;

export const realSpawnNotifier: SpawnNotifier = (argv, opts) => {
  const mark = childMark();
  const proc = Bun.spawn(argv, {
    cwd: opts.cwd,
    env: { ...opts.env, ...mark.env },
    stdin: new Blob([opts.stdin]),
    stdout: "ignore",
    stderr: "pipe",
    // Own group: the limit kills what it started, and a Ctrl-C to the sentinel's group is not its business.
    detached: true,
  });
  // Only its last line is ever said.
  const stderr = drainBounded(proc.stderr, { tailLines: 1 });
  return {
    exited: proc.exited.then(async (code) => {
      await mark.sweep();
      // One the sweep missed may keep stderr open: the exit is what counts.
      await within(stderr.done, GUARDS.notifyStderr);
      await stderr.stop();
      const signal = proc.signalCode === null ? null : String(proc.signalCode);
      return { code: signal ? null : code, signal, stderr: stderr.tail() };
    }),
    kill() {
      // Only while unreaped: then its pid (and group id) cannot have been reused.
      if (proc.exitCode !== null || proc.signalCode !== null) return;
      try {
        process.kill(-proc.pid, "SIGKILL");
      } catch {
        proc.kill("SIGKILL");
      }
    },
  };
};

const realAfter: After = (ms, fn) => {
  const t = setTimeout(fn, ms);
  return () => clearTimeout(t);
};

type NotifierDeps = {
  spawn: SpawnNotifier;
  after: After;
  log: Log;
  env: Record<string, string | undefined>;
  limitMs: number;
  /** Throws when unreadable. */
  setting(projectDir: string): unknown;
  /** A project kept here for another machine's commander: that machine pings its general (MCH-08), never this one. */
  kept?(projectDir: string): boolean;
};

type Notifier = {
  /** Returns at once. */
  notify(wakes: readonly WrittenWake[]): void;
  settled(): Promise<void>;
  /** Kills running notifiers: their timers die with the sentinel. */
  close(): void;
};

type Kind = "config" | "invalid" | "missing" | "start" | "failed" | "hung" | "dropped";

export function createNotifier(d: NotifierDeps): Notifier {
  const logged = new Set<string>();
  const running = new Map<NotifierChild, Promise<void>>();
  // A burst of wakes must not start a crowd.
  const waiting: { home: string; argv: string[]; ping: Ping }[] = [];
  let closing = false;
  const once = (home: string, kind: Kind, what: string) => {
    // close() cut them short; they did not fail.
    if (closing) return;
    const key = `${kind}\0${home}`;
    if (logged.has(key)) return;
    logged.add(key);
    d.log(`sentinel: notify (${home}): ${what} (logged once)`);
  };
  const limitText = `${nominalSeconds("notifyLimit")}s`;

  function argvOf(home: string, cache: Map<string, string[] | undefined>): string[] | undefined {
    if (cache.has(home)) return cache.get(home);
    let argv: string[] | undefined;
    try {
      const parsed = parseNotify(d.setting(home));
      if (parsed && "error" in parsed) once(home, "invalid", `${parsed.error} in .vexillum/config.json - nothing is run until it is fixed`);
      else argv = parsed?.argv;
    } catch (err) {
      once(home, "config", `cannot read its config.json, so no notifier runs: ${errorText(err)}`);
    }
    cache.set(home, argv);
    return argv;
  }

  function start(home: string, argv: string[], ping: Ping): void {
    const prog = foreign(argv[0]);
    const env: Record<string, string> = {};
    for (const [k, v] of Object.entries(d.env)) if (v !== undefined) env[k] = v;
    Object.assign(env, ping.env);
    let child: NotifierChild;
    try {
      child = d.spawn(argv, { stdin: ping.stdin, env, cwd: existsSync(home) ? home : "/" });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === "ENOENT") {
        once(home, "missing", `${prog} not found, so the general is not pinged - install it or change "notify" in .vexillum/config.json`);
      } else {
        once(home, "start", `${prog} could not be started: ${errorText(err)}`);
      }
      return;
    }
    let hung = false;
    const cancel = d.after(d.limitMs, () => {
      hung = true;
      child.kill();
    });
    const done = child.exited
      .then((r) => {
        cancel();
        running.delete(child);
        next();
        if (hung) once(home, "hung", `${prog} was still running after ${limitText} and was killed`);
        else if (r.code !== 0) {
          const last = r.stderr.trimEnd().split("\n").pop() ?? "";
          const how = r.code === null ? `was killed by ${r.signal}` : `exited ${r.code}`;
          once(home, "failed", `${prog} ${how}${last ? `: ${foreign(last)}` : ""}`);
        }
      })
      .catch((err) => {
        running.delete(child);
        next();
        once(home, "failed", `${prog}: ${errorText(err)}`);
      });
    running.set(child, done);
  }

  function next(): void {
    while (!closing && running.size < COUNTS.notifyConcurrent && waiting.length > 0) {
      const w = waiting.shift() as (typeof waiting)[number];
      start(w.home, w.argv, w.ping);
    }
  }

  /** Past the waiting room a ping is dropped. */
  function enqueue(home: string, argv: string[], ping: Ping, dropped: Map<string, number>): void {
    if (waiting.length < COUNTS.notifyWaiting || running.size < COUNTS.notifyConcurrent) {
      waiting.push({ home, argv, ping });
      next();
      return;
    }
    dropped.set(home, (dropped.get(home) ?? 0) + 1);
  }

  return {
    notify(wakes) {
      const cache = new Map<string, string[] | undefined>();
      const dropped = new Map<string, number>();
      for (const w of wakes) {
        const ping = pingFor(w);
        if (!ping || !w.home || d.kept?.(w.home)) continue;
        const argv = argvOf(w.home, cache);
        if (argv) enqueue(w.home, argv, ping, dropped);
      }
      for (const [home, n] of dropped) {
        once(home, "dropped", `${n} ping(s) dropped: ${COUNTS.notifyConcurrent} notifiers running and ${COUNTS.notifyWaiting} waiting`);
      }
    },
    async settled() {
      while (running.size > 0) await Promise.all(running.values());
    },
    close() {
      closing = true;
      waiting.length = 0;
      for (const child of running.keys()) child.kill();
    },
  };
}

/** WAK-14's notifier with real spawn, timer and config reads. */
export function realNotifier(env: Record<string, string | undefined>, log: Log): Notifier {
  return createNotifier({
    spawn: realSpawnNotifier,
    after: realAfter,
    log,
    env,
    limitMs: scaled("notifyLimit", env),
    setting: (dir) => loadConfig(dir)?.notify,
    kept: (dir) => env.HOME !== undefined && isUnder(dir, join(env.HOME, REMOTES_REL)),
  });
}

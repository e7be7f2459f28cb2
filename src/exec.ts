// The process seam: every child vx runs goes through here as an argv array, never a shell string (ENV-10).

export type ExecResult = { code: number; stdout: string; stderr: string };

export type ExecOptions = {
  cwd?: string;
  env?: Record<string, string | undefined>;
  stdin?: string;
  /** Milliseconds before the child is killed; the result then has code 124. */
  timeoutMs?: number;
  /** Share vx's stdio (a step the user watches, e.g. `brew upgrade`): no timeout, and empty stdout and stderr. */
  inherit?: boolean;
};

export interface Exec {
  run(argv: string[], opts?: ExecOptions): Promise<ExecResult>;
}

/** Exit code of a child killed at its `timeoutMs` (the value `timeout(1)` uses). */
export const EXEC_TIMED_OUT = 124;
export const EXEC_NOT_FOUND = 127;
/** Exit code used when it exists but could not be started (E2BIG, EACCES, ...); stderr says why. */
export const EXEC_CANNOT_RUN = 126;

export const realExec: Exec = {
  async run(argv, opts = {}) {
    if (opts.inherit) return runInherited(argv, opts);
    let proc: Bun.Subprocess<"pipe" | "ignore", "pipe", "pipe">;
    try {
      proc = Bun.spawn(argv, {
        cwd: opts.cwd,
        env: (opts.env ?? process.env) as Record<string, string>,
        stdin: opts.stdin === undefined ? "ignore" : "pipe",
        stdout: "pipe",
        stderr: "pipe",
      });
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code === "ENOENT" ? EXEC_NOT_FOUND : EXEC_CANNOT_RUN;
      return { code, stdout: "", stderr: err instanceof Error ? err.message : String(err) };
    }
    if (opts.stdin !== undefined && proc.stdin && typeof proc.stdin !== "number") {
      try {
        // write() returns a promise once the pipe is full; awaiting it catches a late EPIPE too.
        await proc.stdin.write(opts.stdin);
        await proc.stdin.end();
      } catch {
        // The child exited without reading its input (EPIPE): its exit code says what happened.
      }
    }
    let timedOut = false;
    const timer =
      opts.timeoutMs === undefined
        ? undefined
        : setTimeout(() => {
            timedOut = true;
            proc.kill("SIGKILL");
          }, opts.timeoutMs);
    const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
    if (timer) clearTimeout(timer);
    return { code: timedOut ? EXEC_TIMED_OUT : code, stdout, stderr };
  },
};

async function runInherited(argv: string[], opts: ExecOptions): Promise<ExecResult> {
  let proc: Bun.Subprocess;
  try {
    proc = Bun.spawn(argv, { cwd: opts.cwd, env: (opts.env ?? process.env) as Record<string, string>, stdio: ["inherit", "inherit", "inherit"] });
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code === "ENOENT" ? EXEC_NOT_FOUND : EXEC_CANNOT_RUN;
    return { code, stdout: "", stderr: err instanceof Error ? err.message : String(err) };
  }
  return { code: await proc.exited, stdout: "", stderr: "" };
}

export function which(name: string, path: string | undefined = process.env.PATH): string | undefined {
  return Bun.which(name, { PATH: path ?? "" }) ?? undefined;
}

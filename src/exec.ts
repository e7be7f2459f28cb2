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
  /** Keep only the last this many bytes of each of stdout and stderr, read as they come (a long-lived caller's bound). */
  tailBytes?: number;
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
    const read = (stream: ReadableStream<Uint8Array>) => (opts.tailBytes === undefined ? new Response(stream).text() : readTail(stream, opts.tailBytes));
    const [stdout, stderr, code] = await Promise.all([read(proc.stdout), read(proc.stderr), proc.exited]);
    if (timer) clearTimeout(timer);
    return { code: timedOut ? EXEC_TIMED_OUT : code, stdout, stderr };
  },
};

/** The stream's last `max` bytes as text (a character cut at the start is dropped), however much it writes. */
async function readTail(stream: ReadableStream<Uint8Array>, max: number): Promise<string> {
  const chunks: Uint8Array[] = [];
  let held = 0;
  for await (const chunk of stream) {
    chunks.push(chunk);
    held += chunk.length;
    while (chunks.length > 1 && held - (chunks[0] as Uint8Array).length >= max) held -= (chunks.shift() as Uint8Array).length;
  }
  const all = Buffer.concat(chunks);
  const tail = all.length > max ? all.subarray(all.length - max) : all;
  // Skip UTF-8 continuation bytes a cut left at the start.
  let start = 0;
  while (start < tail.length && start < 3 && ((tail[start] as number) & 0xc0) === 0x80) start++;
  return new TextDecoder().decode(tail.subarray(start));
}

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

// The test process's side of the fake herdr's server (herdr-serve.ts): started by the first
// installFakeHerdr, once per test process (bun test --parallel runs each file in a fresh global,
// and ends the processes a file started with it), and stopped by test/preload.ts's cleanup.
import type { FileSink, Subprocess } from "bun";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const SERVE = join(import.meta.dir, "herdr-serve.ts");
/** Starting takes a Bun start and the fake's modules: well under a second, unless the machine is drowning. */
const START_MS = 30_000;

let host: { proc: Subprocess<"pipe", "ignore", "ignore">; stdin: FileSink; client: string } | undefined;

/** Whether `pid` has ended (a zombie counts as ended: nobody reaps it while this thread is busy). */
function ended(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return true;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) === "Z";
  } catch {
    return false; // no /proc: liveness by kill alone
  }
}

/**
 * The client script of this test process's server (the server is started on the first call):
 * link it as `herdr` on a test's PATH. It lives in a 0700 directory, being the token's only copy.
 */
export function fakeHerdrClient(): string {
  if (host && !ended(host.proc.pid)) return host.client;
  stopFakeHerdrServer();
  const dir = mkdtempSync(join(tmpdir(), "vx-fake-herdr-"));
  const client = join(dir, "herdr");
  const log = join(dir, "server.log");
  // No environment: whatever a call needs of one comes from its caller.
  const proc = Bun.spawn([process.execPath, SERVE, dir], { stdin: "pipe", stdout: "ignore", stderr: Bun.file(log), env: {} }) as unknown as Subprocess<"pipe", "ignore", "ignore">;
  proc.unref();
  host = { proc, stdin: proc.stdin, client };
  // Synchronous, as installFakeHerdr is: the server writes the client once it listens.
  const deadline = Date.now() + START_MS;
  while (!existsSync(client)) {
    const why = ended(proc.pid) ? "exited" : Date.now() > deadline ? `did not listen within ${START_MS} ms` : undefined;
    if (why) {
      const said = existsSync(log) ? readFileSync(log, "utf8").trim() : "";
      stopFakeHerdrServer();
      rmSync(dir, { recursive: true, force: true });
      throw new Error(`the fake herdr's server ${why}${said ? `: ${said}` : ""}`);
    }
    Bun.sleepSync(2);
  }
  return client;
}

/** The pid of this test process's server, if one runs (a bench reads its CPU). */
export function fakeHerdrServerPid(): number | undefined {
  return host && !ended(host.proc.pid) ? host.proc.pid : undefined;
}

/** Ends this test process's server, if it started one (its stdin closes; it is also signalled). */
export function stopFakeHerdrServer(): void {
  if (!host) return;
  const { proc, stdin } = host;
  host = undefined;
  try {
    stdin.end();
  } catch {
    // Already closed.
  }
  if (!ended(proc.pid)) proc.kill();
}

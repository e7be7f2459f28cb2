/** Helpers for forum tests: an initialized project, the server it starts, and requests to it. */
import { afterEach } from "bun:test";
import { existsSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Subprocess } from "bun";
import { type Queue, queue } from "./await-kit";
import { VX_BIN, alive, stopSentinels, vx, waitFor } from "./helpers";

export type Forum = Queue & {
  run(args: string[]): ReturnType<typeof vx>;
  /** `vx forum <args>` that must succeed; its printed URL. */
  open(args: string[]): Promise<URL>;
  info(): { pid: number; port: number; token: string };
  base(): string;
  /** A printed link's one-time code traded for the page key, as the page does (FOR-06); the response. */
  login(url: URL, headers?: Record<string, string>): Promise<Response>;
  /** GET/POST with the token as the key header and a matching Host/Origin unless `headers` say otherwise. */
  req(path: string, init?: RequestInit): Promise<Response>;
  post(path: string, body: unknown, headers?: Record<string, string>): Promise<Response>;
  stop(): Promise<void>;
  /** `await using f = await forum()`: the server and any sentinel stopped and the sandbox removed at the end. */
  [Symbol.asyncDispose](): Promise<void>;
};

export async function forum(env: Record<string, string> = {}): Promise<Forum> {
  const q = await queue(env);
  const run = (args: string[]) => vx(["forum", ...args], { cwd: q.project, env: q.env });
  const infoPath = join(q.root, "forum", "server.json");
  const f: Forum = Object.assign(q, {
    run,
    async open(args: string[]) {
      const r = await run(args);
      if (r.code !== 0) throw new Error(`vx forum ${args.join(" ")} exited ${r.code}: ${r.stderr}`);
      const m = r.stdout.match(/^forum: (\S+)$/m);
      if (!m) throw new Error(`no URL in ${JSON.stringify(r.stdout)}`);
      return new URL(m[1] as string);
    },
    info() {
      return JSON.parse(readFileSync(infoPath, "utf8"));
    },
    base() {
      return `http://127.0.0.1:${f.info().port}`;
    },
    login(url: URL, headers: Record<string, string> = {}) {
      const code = url.hash.replace(/^#c=/, "");
      return fetch(`${f.base()}/api/login`, { method: "POST", body: JSON.stringify({ code }), headers: { "content-type": "application/json", origin: f.base(), ...headers }, redirect: "manual" });
    },
    req(path: string, init: RequestInit = {}) {
      const headers = new Headers(init.headers);
      if (!headers.has("authorization")) headers.set("authorization", `Bearer ${f.info().token}`);
      return fetch(`${f.base()}${path}`, { ...init, headers, redirect: "manual" });
    },
    post(path: string, body: unknown, headers: Record<string, string> = {}) {
      return f.req(path, {
        method: "POST",
        body: typeof body === "string" ? body : JSON.stringify(body),
        headers: { "content-type": "application/json", origin: f.base(), ...headers },
      });
    },
    async stop() {
      if (!existsSync(infoPath)) return;
      const pid = f.info().pid;
      if (!alive(pid)) return;
      await run(["stop"]);
      await waitFor(() => !alive(pid), 10_000, "the forum server to stop");
    },
    async [Symbol.asyncDispose]() {
      await f.stop();
      // A wake the server wrote may have started the state root's sentinel: stopped here, not left to notice its root gone.
      await stopSentinels(q.home);
      q[Symbol.dispose]();
    },
  });
  return f;
}

/** A Markdown plan in the project. */
export function writePlan(f: Forum, text = "# The plan\n\n1. Build the **forum**\n2. Test it\n", name = "plan.md"): string {
  const path = join(f.project, name);
  writeFileSync(path, text);
  return path;
}

/** Writes the plan and opens its review session: the session's key. */
export async function openPlan(f: Forum): Promise<string> {
  writePlan(f);
  return (await f.open(["plan.md"])).pathname.split("/")[2] as string;
}

/** A response's JSON body, typed loosely for assertions. */
export async function jsonOf(res: Response): Promise<any> {
  return res.json();
}

/**
 * Starts `vx forum serve` itself behind `prefix` (strace's fault injection, prlimit) and waits
 * until it is the server of this state root: its pid in `server.json`, answering on its port.
 */
export async function serveBehind(f: Forum, prefix: string[]): Promise<{ proc: Subprocess; pid: number }> {
  const before = existsSync(join(f.root, "forum", "server.json")) ? f.info().pid : undefined;
  const proc = Bun.spawn([...prefix, VX_BIN, "forum", "serve"], { cwd: f.project, env: f.env, stdin: "ignore", stdout: "ignore", stderr: "ignore" });
  const pid = await waitFor(
    async () => {
      if (proc.exitCode !== null) throw new Error(`vx forum serve behind ${prefix[0]} exited ${proc.exitCode}`);
      if (!existsSync(join(f.root, "forum", "server.json"))) return undefined;
      const info = f.info();
      if (info.pid === before || !alive(info.pid)) return undefined;
      return (await fetch(`http://127.0.0.1:${info.port}/`).catch(() => undefined)) ? info.pid : undefined;
    },
    30_000,
    `the forum server behind ${prefix[0]}`,
  );
  return { proc, pid };
}

/**
 * strace's fault injection: the traced process is killed with SIGKILL (a real kill -9, at an exact
 * point) at its first of `syscalls` on `path`, or (no path) at its `nth` of them. strace's `-P`
 * matches only the first path of a rename, so a rename is reached by its number instead.
 */
export function killAt(path: string | undefined, syscalls: string[], nth = 1): string[] {
  const strace = Bun.which("strace");
  if (!strace) throw new Error("strace is not installed (Debian's package strace): these kill -9 tests need it");
  const set = syscalls.join(",");
  return [strace, "-f", "-qq", "-o", "/dev/null", ...(path ? ["-P", path] : []), "-e", `trace=${set}`, "-e", `inject=${set}:signal=KILL:when=${nth}`];
}

/**
 * One raw HTTP/1.1 exchange (fetch cannot send a malformed Host, nor stop mid-request): all that
 * came back, and whether the server closed the connection before `waitMs` (then the test does).
 */
export function rawExchange(port: number, text: string, waitMs = 20_000): Promise<{ text: string; closedByServer: boolean }> {
  const chunks: Buffer[] = [];
  let timer: ReturnType<typeof setTimeout> | undefined;
  let ours = false;
  return new Promise((resolve, reject) => {
    Bun.connect({
      hostname: "127.0.0.1",
      port,
      socket: {
        open: (s) => {
          s.write(text);
          timer = setTimeout(() => {
            ours = true;
            s.end();
          }, waitMs);
        },
        data: (_s, d) => void chunks.push(Buffer.from(d)),
        close: () => {
          clearTimeout(timer);
          resolve({ text: Buffer.concat(chunks).toString("utf8"), closedByServer: !ours });
        },
        error: (_s, e) => reject(e),
        connectError: (_s, e) => reject(e),
      },
    }).catch(reject);
  });
}

/** A test file's forums: `start` makes one for the running test, stopped and removed after it. */
export function forumEachTest(): (env?: Record<string, string>) => Promise<Forum> {
  let current: Forum | undefined;
  afterEach(async () => {
    if (current) await current.stop();
    current?.[Symbol.dispose]();
    current = undefined;
  });
  return async (env = {}) => {
    current = await forum(env);
    return current;
  };
}

/** The session key in a review page's URL. */
export const sessionOf = (url: URL) => url.pathname.split("/")[2] as string;

/** The inbox messages of a session, by file name. */
export function inboxFiles(f: Forum, session: string): string[] {
  const dir = join(f.stateDir, "forum-inbox", session);
  return existsSync(dir) ? readdirSync(dir).filter((n) => n.endsWith(".json")) : [];
}

/** Helpers for forum tests: an initialized project, the server it starts, and requests to it. */
import { afterEach } from "bun:test";
import { existsSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type Queue, queue } from "./await-kit";
import { alive, vx, waitFor } from "./helpers";

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
  });
  return f;
}

/** A Markdown plan in the project. */
export function writePlan(f: Forum, text = "# The plan\n\n1. Build the **forum**\n2. Test it\n", name = "plan.md"): string {
  const path = join(f.project, name);
  writeFileSync(path, text);
  return path;
}

/** A response's JSON body, typed loosely for assertions. */
export async function jsonOf(res: Response): Promise<any> {
  return res.json();
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

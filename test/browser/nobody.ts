// Another local user for the forum's security tests: `nobody`, through runuser (the tests run as
// root), with a server of its own on another port of 127.0.0.1 that logs every request it gets,
// and curl run as that user to replay what it got against the forum.
import { chmodSync, chownSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { waitFor } from "../helpers";

const RUNUSER = Bun.which("runuser") ?? Bun.which("runuser", { PATH: "/usr/sbin:/sbin" });
const CURL = Bun.which("curl");
const BUN = Bun.which("bun");

/** Why the tests cannot play another user here, or undefined when they can. */
export function noOtherUser(): string | undefined {
  if (process.getuid?.() !== 0) return "not running as root (runuser needs it)";
  for (const [tool, path] of [
    ["runuser", RUNUSER],
    ["curl", CURL],
    ["bun", BUN],
  ])
    if (!path) return `no ${tool} found`;
  const r = Bun.spawnSync([RUNUSER as string, "-u", "nobody", "--", BUN as string, "--version"], { stdout: "ignore", stderr: "ignore" });
  return r.exitCode === 0 ? undefined : "user nobody cannot run bun here";
}

export type Seen = { method: string; path: string; headers: Record<string, string>; body: string };

export type Thief = {
  base: string;
  /** Every request the server has received, in order. */
  seen: Seen[];
  /** curl as nobody: the body and the status. */
  curl(url: string, headers?: Record<string, string>, body?: string): Promise<{ status: number; body: string }>;
  stop(): Promise<void>;
};

// The other user's server: `/` is `page` (with FORUM replaced), anything else is logged and answered "ok".
const SERVER = `
const page = process.env.THIEF_PAGE ?? "";
const server = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  async fetch(req) {
    const u = new URL(req.url);
    const body = req.method === "GET" || req.method === "HEAD" ? "" : await req.text();
    console.log(JSON.stringify({ method: req.method, path: u.pathname + u.search, headers: Object.fromEntries(req.headers), body }));
    if (u.pathname === "/") return new Response(page, { headers: { "content-type": "text/html; charset=utf-8" } });
    return new Response("ok", { headers: { "access-control-allow-origin": "*" } });
  },
});
console.log(JSON.stringify({ port: server.port }));
for await (const _ of Bun.stdin.stream()) {}
server.stop(true);
process.exit(0);
`;

/** Starts nobody's server; `page` is what it serves at `/`. */
export async function startThief(page = "<!doctype html><p>nothing here</p>"): Promise<Thief> {
  const dir = mkdtempSync(join(tmpdir(), "vx-nobody-"));
  chmodSync(dir, 0o755);
  const uid = Number(Bun.spawnSync(["id", "-u", "nobody"]).stdout.toString().trim());
  const gid = Number(Bun.spawnSync(["id", "-g", "nobody"]).stdout.toString().trim());
  chownSync(dir, uid, gid);
  writeFileSync(join(dir, "server.ts"), SERVER, { mode: 0o644 });
  const env = { HOME: dir, TMPDIR: dir, PATH: "/usr/bin:/bin", THIEF_PAGE: page };
  const proc = Bun.spawn([RUNUSER as string, "-u", "nobody", "--", BUN as string, join(dir, "server.ts")], { cwd: dir, env, stdin: "pipe", stdout: "pipe", stderr: "inherit" });
  const seen: Seen[] = [];
  let port = 0;
  const reading = (async () => {
    let buf = "";
    for await (const chunk of proc.stdout.pipeThrough(new TextDecoderStream())) {
      buf += chunk;
      for (let i = buf.indexOf("\n"); i >= 0; i = buf.indexOf("\n")) {
        const line = JSON.parse(buf.slice(0, i));
        buf = buf.slice(i + 1);
        if (typeof line.port === "number") port = line.port;
        else seen.push(line);
      }
    }
  })();
  await waitFor(() => port > 0 || proc.exitCode !== null, 20_000, "nobody's server to listen");
  if (!port) throw new Error("nobody's server did not start");
  return {
    base: `http://127.0.0.1:${port}`,
    seen,
    async curl(url, headers = {}, body) {
      const args = ["-s", "-o", "-", "-w", "\n%{http_code}", ...Object.entries(headers).flatMap(([k, v]) => ["-H", `${k}: ${v}`])];
      if (body !== undefined) args.push("--data-binary", body);
      const p = Bun.spawn([RUNUSER as string, "-u", "nobody", "--", CURL as string, ...args, url], { cwd: dir, env: { PATH: "/usr/bin:/bin", HOME: dir }, stdout: "pipe" });
      const out = await new Response(p.stdout).text();
      await p.exited;
      const cut = out.lastIndexOf("\n");
      return { status: Number(out.slice(cut + 1)), body: out.slice(0, cut) };
    },
    async stop() {
      proc.stdin.end();
      await proc.exited;
      await reading;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

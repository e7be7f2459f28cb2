// The fake herdr's transport: the bash client on a test's PATH and the server answering it. What
// a caller of `herdr` sees (bytes, exit code, pid, cwd, environment) must be what one process per
// call gave, or the fake's contract with the real herdr would no longer be what vx meets.
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { activeWaits, addAgent, callLog, createWorkspace, installFakeHerdr, readState, setPaneText, type FakeHerdrEnv } from "../fakes/herdr-control.ts";
import { runHerdr } from "../fakes/herdr.ts";
import { type WireAnswer, type WireRequest, NO_SERVER, clientScript, encodeAnswer, parseRequest } from "../fakes/herdr-wire.ts";
import { waitFor } from "../helpers";

interface Ran {
  code: number;
  stdout: Uint8Array;
  stderr: Uint8Array;
  pid: number;
}

async function runClient(bin: string, args: string[], env: Record<string, string>, cwd?: string): Promise<Ran> {
  const proc = Bun.spawn([bin, ...args], { env, cwd, stdout: "pipe", stderr: "pipe" });
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).bytes(), new Response(proc.stderr).bytes(), proc.exited]);
  return { code, stdout, stderr, pid: proc.pid };
}

const utf8 = (text: string) => new TextEncoder().encode(text);
const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes);

interface Conn {
  buf: Uint8Array;
  out: Uint8Array | null;
}

/** Writes what the socket takes now, the rest when it drains, then ends the connection. */
function flush(s: Bun.Socket<Conn>): void {
  if (!s.data.out) return;
  const n = s.write(s.data.out);
  s.data.out = n < s.data.out.length ? s.data.out.subarray(n) : null;
  if (!s.data.out) s.end();
}

describe("the client script against a listener speaking the wire", () => {
  const TOKEN = "00c0ffee11";
  let dir: string;
  let bin: string;
  let requests: WireRequest[];
  let reply: WireAnswer | null;
  let listener: Bun.TCPSocketListener<Conn>;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "herdr-wire-"));
    requests = [];
    reply = { code: 0, stdout: "", stderr: "" };
    listener = Bun.listen<Conn>({
      hostname: "127.0.0.1",
      port: 0,
      socket: {
        open(s) {
          s.data = { buf: new Uint8Array(0), out: null };
        },
        drain: flush,
        data(s, chunk) {
          const buf = new Uint8Array([...s.data.buf, ...chunk]);
          s.data.buf = buf;
          const req = parseRequest(buf, (t) => t === TOKEN);
          if (!req) return;
          requests.push(req);
          if (!reply) return void s.end();
          s.data.out = encodeAnswer(reply);
          flush(s);
        },
      },
    });
    bin = join(dir, "herdr");
    writeFileSync(bin, clientScript(listener.port, TOKEN), { mode: 0o700 });
  });
  afterEach(() => {
    listener.stop(true);
    rmSync(dir, { recursive: true, force: true });
  });

  test("argv, the client's pid, its physical cwd, $0, and its environment (unset apart from empty) arrive as they were", async () => {
    const real = join(dir, "real");
    mkdirSync(real);
    symlinkSync(real, join(dir, "link"));
    const args = ["agent", "read", "a b", "", "-x", "line1\nline2\n", "héllo ✓", "back\\slash", " lead", "trail\t"];
    const env = { PATH: "/nowhere", HOME: "", XDG_CONFIG_HOME: "/x d g", FAKE_HERDR_STATE: "s=1", NOT_SENT: "secret" };
    const r = await runClient(bin, args, env, join(dir, "link"));
    expect(r.code).toBe(0);
    expect(requests).toEqual([{ token: TOKEN, pid: r.pid, cwd: realpathSync(real), binary: bin, argv: args, env: { HOME: "", XDG_CONFIG_HOME: "/x d g", FAKE_HERDR_STATE: "s=1" } }]);
  });

  test("stdout and stderr come through byte for byte, and the exit code with them", async () => {
    const answers: WireAnswer[] = [
      { code: 0, stdout: "", stderr: "" },
      { code: 1, stdout: "one\ntwo\n\n\n", stderr: '{"error":{"code":"x"}}\n' },
      { code: 2, stdout: "  lead and trail  \t", stderr: "usage: herdr ✓ é 日本\n" },
      { code: 0, stdout: "\0a\0\0b\0", stderr: "\0" },
      { code: 70, stdout: "back\\slash\r\n", stderr: "" },
      { code: 255, stdout: `${"x".repeat(199_999)}\n`, stderr: "z".repeat(70_000) },
    ];
    for (const a of answers) {
      reply = a;
      const r = await runClient(bin, ["status"], {});
      expect({ code: r.code, stdout: r.stdout, stderr: r.stderr }).toEqual({ code: a.code, stdout: utf8(a.stdout), stderr: utf8(a.stderr) });
    }
  });

  test("no answer, or no server at all: exit 70 and one line on stderr", async () => {
    reply = null;
    const silent = await runClient(bin, ["agent", "list"], {});
    expect([silent.code, text(silent.stdout)]).toEqual([NO_SERVER, ""]);
    expect(text(silent.stderr)).toMatch(/^fake herdr: no answer from its server at 127\.0\.0\.1:\d+\n$/);
    listener.stop(true);
    const gone = await runClient(bin, ["agent", "list"], {});
    expect([gone.code, text(gone.stdout)]).toEqual([NO_SERVER, ""]);
    expect(text(gone.stderr)).toMatch(/^fake herdr: cannot reach its server at 127\.0\.0\.1:\d+\n$/);
  });
});

describe("the server of this test process", () => {
  let dir: string;
  let env: FakeHerdrEnv;
  let client: string;
  const run = (args: string[], extra: Record<string, string> = {}) => runClient(join(dir, "bin", "herdr"), args, { ...env, HOME: dir, ...extra }, dir);

  beforeEach(() => {
    dir = realpathSync(mkdtempSync(join(tmpdir(), "herdr-serve-")));
    env = installFakeHerdr(join(dir, "bin"));
    client = realpathSync(join(dir, "bin", "herdr"));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  test("the client is the token's only copy: 0700 in a 0700 directory, and no process's command line holds it", () => {
    expect(statSync(client).mode & 0o777).toBe(0o700);
    expect(statSync(join(client, "..")).mode & 0o777).toBe(0o700);
    const token = /printf '%s\\0' ([0-9a-f]+) /.exec(readFileSync(client, "utf8"))?.[1];
    expect(token).toMatch(/^[0-9a-f]{32}$/);
    expect(Bun.spawnSync(["ps", "-eo", "args"]).stdout.toString()).not.toContain(token!);
  });

  test("answers are exactly what the fake's code answers the same call in process", async () => {
    const ws = createWorkspace(env, { cwd: dir });
    addAgent(env, ws.pane_id, { name: "a1" });
    setPaneText(env, "a1", "ünïcode ✓\n\n  indented\ttab\nlast line without newline");
    const calls = [
      ["agent", "read", "a1", "--source", "recent-unwrapped"],
      ["agent", "read", "a1"],
      ["agent", "get", "a1"],
      ["agent", "get", "nobody"],
      ["agent", "list", "--bad"],
      ["status", "--json"],
      ["pane", "run", ws.pane_id, "ls"],
    ];
    for (const argv of calls) {
      const r = await run(argv);
      const want = await runHerdr({ argv, env: { ...env, HOME: dir }, cwd: dir, pid: r.pid, binary: join(dir, "bin", "herdr") });
      expect({ code: r.code, stdout: text(r.stdout), stderr: text(r.stderr) }).toEqual(want);
    }
    expect((await run(["agent", "list", "--bad"])).code).toBe(2);
    expect((await run(["pane", "run", ws.pane_id, "ls"])).stdout).toEqual(new Uint8Array(0));
    // Every call logged with its caller's pid, not the server's.
    expect(callLog(env).every((c) => c.pid !== process.pid)).toBe(true);
  });

  test("a killed `agent wait` client reads as a gone waiter, and the server goes on answering", async () => {
    const ws = createWorkspace(env, { cwd: dir });
    addAgent(env, ws.pane_id, { name: "a1", status: "working" });
    const proc = Bun.spawn([join(dir, "bin", "herdr"), "agent", "wait", "a1"], { env: { ...env, HOME: dir }, stdout: "pipe", stderr: "pipe" });
    const waits = await waitFor(() => {
      const w = activeWaits(env, "a1");
      return w.length ? w : undefined;
    });
    expect(waits.map((w) => w.pid)).toEqual([proc.pid]);
    proc.kill("SIGKILL");
    await proc.exited;
    expect(activeWaits(env, "a1")).toEqual([]);
    // Its record stays, naming the dead client, as a killed process's did.
    expect(readState(env).waiting.map((w) => w.pid)).toEqual([proc.pid]);
    expect((await run(["agent", "list"])).code).toBe(0);
  });

  test("a call with a wrong token is refused: no answer, exit 70, nothing done", async () => {
    const forged = join(dir, "forged");
    writeFileSync(forged, readFileSync(client, "utf8").replace(/(printf '%s\\0' )[0-9a-f]+/, "$1deadbeefdeadbeefdeadbeefdeadbeef"), { mode: 0o700 });
    const r = await runClient(forged, ["workspace", "create", "--cwd", dir], { ...env, HOME: dir });
    expect([r.code, text(r.stdout)]).toEqual([NO_SERVER, ""]);
    expect(text(r.stderr)).toMatch(/^fake herdr: (no answer from|cannot write to) its server at 127\.0\.0\.1:\d+\n$/);
    expect(callLog(env)).toEqual([]);
    expect(readState(env).workspaces).toEqual([]);
    expect((await run(["workspace", "list"])).code).toBe(0);
  });
});

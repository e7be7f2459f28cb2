/**
 * The real herdr (0.8.2, built from its source and shipped beside the project in
 * `../shared/tools/herdr/`) for tests: unpacked once into a cache outside the checkout, run headless
 * with a private HOME (its socket, log and config live there) and its network checks off. Every
 * test that can use the real server uses this; the fake (`fakes/herdr*.ts`) stays for what a real
 * server cannot be made to do on cue. A missing binary fails the test with the reason, never skips.
 */
import { createHash } from "node:crypto";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir, userInfo } from "node:os";
import { join, resolve } from "node:path";
import { sandboxPath } from "./tool-path";

export const REAL_HERDR_VERSION = "0.8.2";
export const REAL_HERDR_PROTOCOL = 20;
/** sha256 of the unpacked binary, from the shipped README. */
const BINARY_SHA256 = "150a578589d1932994cf43475f564576f2a2ee160c400e16c71e181a60bafc02";
const ARCHIVE = resolve(import.meta.dir, "..", "..", "shared", "tools", "herdr", `herdr-${REAL_HERDR_VERSION}-linux-x64.xz`);

/** The cache outside the checkout: `VXHERDR_CACHE` (a name the preload keeps), else ~/.cache/vx-herdr of the HOME the run started with. */
export function herdrCacheDir(): string {
  return process.env.VXHERDR_CACHE || join(userInfo().homedir, ".cache", "vx-herdr");
}

function sha256(path: string): string {
  return createHash("sha256").update(readFileSync(path)).digest("hex");
}

let cached: string | undefined;

/** The real herdr binary: `VXHERDR_BIN`, else the cache, unpacking the shipped archive first. */
export function realHerdrBinary(): string {
  if (cached) return cached;
  const given = process.env.VXHERDR_BIN;
  if (given) {
    if (!existsSync(given)) throw new Error(`VXHERDR_BIN=${given} does not exist`);
    cached = given;
    return given;
  }
  const dir = herdrCacheDir();
  const bin = join(dir, `herdr-${REAL_HERDR_VERSION}`);
  if (existsSync(bin) && sha256(bin) === BINARY_SHA256) {
    cached = bin;
    return bin;
  }
  if (!existsSync(ARCHIVE)) {
    throw new Error(`the real herdr is not available: ${ARCHIVE} is missing (set VXHERDR_BIN to a herdr ${REAL_HERDR_VERSION} binary)`);
  }
  mkdirSync(dir, { recursive: true });
  const tmp = `${bin}.${process.pid}.tmp`;
  const res = Bun.spawnSync(["sh", "-c", 'xz -dc "$1" > "$2"', "sh", ARCHIVE, tmp], { stdout: "pipe", stderr: "pipe" });
  if (res.exitCode !== 0) throw new Error(`unpacking ${ARCHIVE} failed: ${res.stderr.toString().trim()}`);
  if (sha256(tmp) !== BINARY_SHA256) {
    rmSync(tmp, { force: true });
    throw new Error(`the unpacked herdr's sha256 is not ${BINARY_SHA256}`);
  }
  chmodSync(tmp, 0o755);
  renameSync(tmp, bin);
  cached = bin;
  return bin;
}

export interface RealHerdr {
  /** The server's private HOME (its socket and log are under `.config/herdr/`). */
  home: string;
  /** A directory holding only `herdr` (a link to the real binary), to put first on a PATH. */
  binDir: string;
  socket: string;
  /** What a herdr CLI call needs to reach this server, whatever HOME the caller has. */
  env: { HERDR_SOCKET_PATH: string; PATH: string };
  /** Runs `herdr <args>` against this server. */
  run(args: string[]): { code: number; stdout: string; stderr: string };
  /** Runs a herdr call that answers JSON and returns its `result`; throws on failure. */
  json<T = Record<string, unknown>>(args: string[]): T;
  /** A workspace rooted at `cwd`: its id and its root pane (where a commander would run). */
  workspace(cwd: string, label?: string): { workspace: string; pane: string; tab: string };
  /** The variables a program in `pane` gets from herdr (what a commander in that pane sees). */
  paneEnv(pane: { workspace: string; pane: string; tab: string }): Record<string, string>;
  /** Stops the server (`herdr server stop`, then its verified pid) and removes HOME. */
  stop(): Promise<void>;
  /** Stops the server but keeps HOME, so `restart()` brings it back over the same state. */
  halt(): Promise<void>;
  restart(): Promise<void>;
}

/** Network checks off: left on, the server fetches its manifests from the internet at start. */
const CONFIG = "[update]\nversion_check = false\nmanifest_check = false\n";

/** Waits on a condition, polling; throws with `what` when it does not hold in time. */
async function until(what: string, ok: () => boolean, timeoutMs = 20_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!ok()) {
    if (Date.now() > end) throw new Error(`real herdr: timed out waiting for ${what}`);
    await Bun.sleep(25);
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return !/^\d+ \(.*\) Z /.test(stat);
  } catch {
    return false;
  }
}

/**
 * Starts a headless real herdr server with a private HOME; `opts.env` adds to its environment,
 * which every pane's program inherits. A HOME there is a person's (their login started herdr): the
 * server runs with it and gets the network-off config in it, as theirs; its socket stays in the
 * private home (`HERDR_SOCKET_PATH`), so `run` and `env` reach it either way.
 */
export async function startRealHerdr(opts: { env?: Record<string, string> } = {}): Promise<RealHerdr> {
  const binary = realHerdrBinary();
  const home = mkdtempSync(join(tmpdir(), "vx-herdr-"));
  const binDir = join(home, "bin");
  mkdirSync(join(home, ".config", "herdr"), { recursive: true });
  mkdirSync(binDir);
  writeFileSync(join(home, ".config", "herdr", "config.toml"), CONFIG);
  symlinkSync(binary, join(binDir, "herdr"));
  const socket = join(home, ".config", "herdr", "herdr.sock");
  const path = sandboxPath(binDir);
  const serverEnv: Record<string, string> = {
    HOME: home,
    TERM: "xterm-256color",
    LANG: "C.UTF-8",
    TMPDIR: tmpdir(),
    ...opts.env,
    HERDR_SOCKET_PATH: socket,
    // herdr first whatever PATH the caller gives: its panes' programs call it back.
    PATH: `${binDir}:${opts.env?.PATH ?? path}`,
  };
  if (serverEnv.HOME !== home) {
    const config = join(serverEnv.XDG_CONFIG_HOME || join(serverEnv.HOME as string, ".config"), "herdr");
    mkdirSync(config, { recursive: true });
    writeFileSync(join(config, "config.toml"), CONFIG);
  }
  const cliEnv = { HOME: home, PATH: path, HERDR_SOCKET_PATH: socket, TMPDIR: tmpdir() };
  let pid = 0;

  const run = (args: string[]) => {
    const res = Bun.spawnSync(["herdr", ...args], { env: cliEnv, stdout: "pipe", stderr: "pipe", stdin: "ignore" });
    return { code: res.exitCode ?? -1, stdout: res.stdout.toString(), stderr: res.stderr.toString() };
  };
  const running = () => {
    const res = run(["status", "server", "--json"]);
    try {
      return res.code === 0 && JSON.parse(res.stdout).running === true;
    } catch {
      return false;
    }
  };
  const launch = async () => {
    // setsid: detached from the test's process group, as `herdr server` runs under a person's login.
    // By its path: a PATH given in `opts.env` (a person's) need not hold the test's herdr.
    const proc = Bun.spawn(["setsid", join(binDir, "herdr"), "server"], {
      env: serverEnv,
      cwd: home,
      stdin: "ignore",
      stdout: "ignore",
      stderr: "ignore",
    });
    pid = proc.pid;
    await until("the server to answer", running);
  };
  const halt = async () => {
    if (pid && alive(pid)) {
      run(["server", "stop"]);
      const end = Date.now() + 10_000;
      while (alive(pid) && Date.now() < end) await Bun.sleep(25);
      // Our own child, by the pid we spawned: never by name.
      if (alive(pid)) process.kill(pid, "SIGKILL");
      await until("the server to exit", () => !alive(pid));
    }
  };

  await launch();
  const self: RealHerdr = {
    home,
    binDir,
    socket,
    env: { HERDR_SOCKET_PATH: socket, PATH: path },
    run,
    json<T>(args: string[]): T {
      const res = run(args);
      if (res.code !== 0) throw new Error(`herdr ${args.join(" ")} failed (exit ${res.code}): ${res.stderr.trim() || res.stdout.trim()}`);
      return JSON.parse(res.stdout).result as T;
    },
    workspace(cwd: string, label = "vx-test") {
      const r = self.json<{ workspace: { workspace_id: string }; root_pane: { pane_id: string; tab_id: string } }>(["workspace", "create", "--cwd", cwd, "--label", label]);
      return { workspace: r.workspace.workspace_id, pane: r.root_pane.pane_id, tab: r.root_pane.tab_id };
    },
    paneEnv(p) {
      return {
        HERDR_ENV: "1",
        HERDR_SOCKET_PATH: socket,
        HERDR_WORKSPACE_ID: p.workspace,
        HERDR_PANE_ID: p.pane,
        HERDR_TAB_ID: p.tab,
      };
    },
    async stop() {
      await halt();
      rmSync(home, { recursive: true, force: true });
    },
    halt,
    restart: launch,
  };
  return self;
}

/**
 * Real releases for the installer and `vx upgrade` tests: `bun run release` for this machine's
 * platform at bumped versions (built once per test run, cached in the run's temp dir), served on
 * 127.0.0.1 in the GitHub Releases layout by a small HTTP server whose faults a test chooses:
 * a missing asset, a tampered archive, or the server going away halfway through a download.
 */
import { createHash } from "node:crypto";
import {
  closeSync,
  copyFileSync,
  createWriteStream,
  existsSync,
  mkdirSync,
  openSync,
  readFileSync,
  readSync,
  readdirSync,
  realpathSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { type Server, type Socket, createServer } from "node:net";
import { tmpdir, userInfo } from "node:os";
import { join } from "node:path";
import { createGzip } from "node:zlib";
import { type HeldLock, lockExclusive } from "../src/state/lock";
import { MAX_BINARY_BYTES, RECEIPT_NAME, archiveName, hostPlatform } from "../src/release-info";
import { archiveOne, checksumsText, installerText, sha256 } from "../scripts/release-files";
import { REPO } from "./helpers";
import { sandboxPath } from "./tool-path";

const PKG_VERSION: string = JSON.parse(readFileSync(join(REPO, "package.json"), "utf8")).version;

/** Versions above the checkout's: `older` is installed first, `newer` is what upgrade finds. */
export function bumped(): { older: string; newer: string } {
  const [major, minor, patch] = PKG_VERSION.split(/[.-]/).map(Number) as [number, number, number];
  return { older: `${major}.${minor}.${patch + 1}`, newer: `${major}.${minor + 1}.0` };
}

export const HOST = hostPlatform() ?? { os: "linux", arch: "x64" };
export const ARCHIVE = archiveName(HOST);
/** Baked into the test releases' install.sh and formula: unreachable, so a test that forgets VX_RELEASES_URL fails fast. */
export const BAKED_BASE = "http://vx-releases.invalid/releases";

/** The host's other architecture: a platform whose Bun runtime the tests keep out of reach. */
export const UNBUILDABLE = `${HOST.os}-${HOST.arch === "x64" ? "arm64" : "x64"}`;

/**
 * A hook that builds releases may wait for `bun run release` twice (two versions), or for another
 * test file's worker building the same one: minutes on a busy 2-CPU machine, not the test default.
 */
export const RELEASE_BUILD_TIMEOUT = 300_000;

/**
 * Where built releases are kept between runs: `VXRELEASE_CACHE` (a name the preload keeps), else
 * ~/.cache/vx-test-releases of the user the run belongs to (not the run's throwaway HOME). One
 * directory per hash of every input of a build, so a changed source never reuses a stale binary.
 */
function cacheRoot(): string {
  return process.env.VXRELEASE_CACHE || join(userInfo().homedir, ".cache", "vx-test-releases");
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name))
    .sort();
}

let inputs: string | undefined;
/** The hash of what a test release is built from: the sources, the build scripts, the lockfile, Bun itself, the baked URL. */
function inputHash(): string {
  if (inputs) return inputs;
  const h = createHash("sha256");
  h.update(`${Bun.version} ${Bun.revision} ${BAKED_BASE} ${UNBUILDABLE}\n`);
  const files = [...filesUnder(join(REPO, "src")), ...filesUnder(join(REPO, "scripts")), join(REPO, "package.json"), join(REPO, "bun.lock")];
  for (const file of files) {
    h.update(`${file.slice(REPO.length)}\0`);
    h.update(readFileSync(file));
    h.update("\0");
  }
  inputs = h.digest("hex").slice(0, 16);
  return inputs;
}

/** This build's cache directory; other builds' directories unused for a week are removed on the way. */
function cacheDir(): string {
  const root = cacheRoot();
  mkdirSync(root, { recursive: true, mode: 0o700 });
  const mine = join(root, inputHash());
  for (const name of readdirSync(root)) {
    const path = join(root, name);
    if (path === mine || !/^[0-9a-f]{16}$/.test(name)) continue;
    if (Date.now() - statSync(path).mtimeMs > 7 * 24 * 3600_000) rmSync(path, { recursive: true, force: true });
  }
  mkdirSync(mine, { recursive: true });
  return mine;
}

/**
 * The release directory for `version` (host platform only), built once for these inputs and kept
 * (see cacheRoot). The `older` release is asked for `UNBUILDABLE` as well, with no runtime cache
 * and a proxy to a closed port, so it doubles as a partial release (its exit code and stderr kept
 * in build.log) without a third build.
 */
export function release(version: string): string {
  const dir = join(cacheDir(), version);
  if (existsSync(join(dir, "checksums.txt"))) return dir;
  // Test files run in parallel workers (and other checkouts may share the cache): one builds, the others wait on the lock and find it built.
  const held = cacheLock(cacheDir(), version);
  try {
    if (existsSync(join(dir, "checksums.txt"))) return dir;
    return build(version, dir);
  } finally {
    held.release();
  }
}

/** The cross-process lock on one cached release (a kernel lock: a killed builder frees it). */
function cacheLock(dir: string, version: string): HeldLock {
  mkdirSync(dir, { recursive: true });
  return lockExclusive(join(dir, `${version}.lock`));
}

function build(version: string, dir: string): string {
  const partial = version === bumped().older;
  // Built beside its place, then renamed: a build killed halfway is never taken for a whole one.
  const tmp = `${dir}.building`;
  rmSync(tmp, { recursive: true, force: true });
  const offline = { BUN_INSTALL_CACHE_DIR: join(tmp, ".no-cache"), HTTPS_PROXY: "http://127.0.0.1:9", HTTP_PROXY: "http://127.0.0.1:9", NO_PROXY: "" };
  const res = Bun.spawnSync([process.execPath, join(REPO, "scripts", "release.ts"), "--targets", partial ? `host,${UNBUILDABLE}` : "host", "--version", version, "--out", tmp], {
    cwd: REPO,
    env: { ...process.env, VX_RELEASES_URL: BAKED_BASE, ...(partial ? offline : {}) },
    stdout: "pipe",
    stderr: "pipe",
  });
  if (!existsSync(join(tmp, "checksums.txt")) || (!partial && res.exitCode !== 0)) {
    rmSync(tmp, { recursive: true, force: true });
    throw new Error(`release ${version} failed: ${res.stderr.toString()}`);
  }
  rmSync(join(tmp, ".no-cache"), { recursive: true, force: true });
  writeFileSync(`${dir}.build.log`, `exit ${res.exitCode}\n${res.stderr.toString()}`);
  rmSync(dir, { recursive: true, force: true });
  renameSync(tmp, dir);
  return dir;
}

/** What `bun run release` said while building `version` (first line `exit <code>`). */
export function releaseLog(version: string): string {
  return readFileSync(`${release(version)}.build.log`, "utf8");
}

/**
 * A stand-in release for the installer's own paths (pins, fallbacks): an archive made by the
 * release code around a shell script that answers `--version` as vx does, in milliseconds.
 */
export async function tinyRelease(version: string): Promise<string> {
  const dir = join(tmpdir(), "vx-release-cache", `tiny-${version}`);
  if (existsSync(join(dir, "checksums.txt"))) return dir;
  const held = cacheLock(join(tmpdir(), "vx-release-cache"), `tiny-${version}`);
  try {
    if (!existsSync(join(dir, "checksums.txt"))) await buildTiny(version, dir);
  } finally {
    held.release();
  }
  return dir;
}

async function buildTiny(version: string, dir: string): Promise<void> {
  mkdirSync(dir, { recursive: true });
  const archive = await archiveOne("vx", new TextEncoder().encode(`#!/bin/sh\necho "vx ${version}"\n`), Date.now() / 1000);
  writeFileSync(join(dir, ARCHIVE), archive);
  writeFileSync(join(dir, "version.txt"), `${version}\n`);
  writeFileSync(join(dir, "checksums.txt"), checksumsText({ [ARCHIVE]: sha256(archive) }));
}

export type Fault = "missing" | "tamper" | "cut";

/** A release server on 127.0.0.1: `<base>/download/v<v>/<asset>` and `<base>/latest/download/<asset>`. */
export class ReleaseServer {
  latest = "";
  readonly releases = new Map<string, string>();
  /** Per asset name (any version): what goes wrong when it is asked for. */
  readonly faults = new Map<string, Fault>();
  /** Per asset name (any version): a body served instead of the release's file. */
  readonly bodies = new Map<string, string | Uint8Array>();
  /** Every path asked for, in order. */
  readonly requests: string[] = [];
  private readonly read = new Map<string, Buffer>();
  private server: Server;
  private sockets = new Set<Socket>();
  port = 0;

  private constructor() {
    this.server = createServer((sock) => {
      this.sockets.add(sock);
      sock.on("close", () => this.sockets.delete(sock));
      sock.on("error", () => {});
      let head = "";
      sock.on("data", (chunk) => {
        head += chunk.toString("latin1");
        if (!head.includes("\r\n\r\n")) return;
        const path = /^GET (\S+) HTTP/.exec(head)?.[1] ?? "";
        head = "";
        this.answer(sock, path);
      });
    });
  }

  static async start(): Promise<ReleaseServer> {
    const s = new ReleaseServer();
    await new Promise<void>((resolve) => s.server.listen(0, "127.0.0.1", resolve));
    s.port = (s.server.address() as { port: number }).port;
    return s;
  }

  get base(): string {
    return `http://127.0.0.1:${this.port}/releases`;
  }

  private file(path: string): { name: string; bytes: Buffer } | undefined {
    const m = /^\/releases\/(?:latest\/download|download\/v([^/]+))\/([^/]+)$/.exec(path);
    if (!m) return undefined;
    const version = m[1] ?? this.latest;
    const dir = this.releases.get(version);
    const name = m[2] as string;
    if (!dir || this.faults.get(name) === "missing") return undefined;
    const body = this.bodies.get(name);
    if (body !== undefined) return { name, bytes: Buffer.from(body) };
    const onDisk = join(dir, name);
    const st = statSync(onDisk, { throwIfNoEntry: false });
    if (!st) return undefined;
    // Read once while unchanged: a test asks for the same 50 MB archive many times.
    const key = `${onDisk}\0${st.mtimeMs}\0${st.size}`;
    let bytes = this.read.get(key);
    if (!bytes) this.read.set(key, (bytes = readFileSync(onDisk)));
    return { name, bytes };
  }

  private answer(sock: Socket, path: string): void {
    this.requests.push(path);
    const found = this.file(path);
    if (!found) {
      sock.end("HTTP/1.1 404 Not Found\r\nContent-Length: 9\r\nConnection: close\r\n\r\nNot Found");
      return;
    }
    let body = found.bytes;
    const fault = this.faults.get(found.name);
    if (fault === "tamper") {
      body = Buffer.from(body);
      body[body.length >> 1] = (body[body.length >> 1] ?? 0) ^ 0xff;
    }
    const header = `HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n`;
    if (fault === "cut") {
      // Half the body, then the connection dies: the server went away mid-download.
      sock.write(header);
      sock.write(body.subarray(0, body.length >> 1), () => sock.destroy());
      return;
    }
    sock.write(header);
    sock.end(body);
  }

  serve(version: string, dir = release(version)): this {
    this.releases.set(version, dir);
    return this;
  }

  async stop(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

/** Tools the installer needs beyond the suite's usual ones, linked into `bin`. */
const INSTALLER_TOOLS = ["curl", "wget", "tar", "gzip", "dd", "sha256sum", "shasum", "cut", "awk", "sysctl"];

/** PATH for the installer: `bin` (with the download and checksum tools linked in), then the usual tools. */
export function installerPath(bin: string, omit: string[] = []): string {
  mkdirSync(bin, { recursive: true });
  for (const name of INSTALLER_TOOLS) {
    if (omit.includes(name) || existsSync(join(bin, name))) continue;
    const real = Bun.which(name, { PATH: process.env.PATH ?? "/usr/bin:/bin" });
    if (real) symlinkSync(real, join(bin, name));
  }
  return sandboxPath(bin);
}

export type RunResult = { code: number; stdout: string; stderr: string };

export async function run(argv: string[], opts: { cwd: string; env: Record<string, string>; stdin?: string }): Promise<RunResult> {
  const proc = Bun.spawn(argv, {
    cwd: opts.cwd,
    env: opts.env,
    stdin: opts.stdin === undefined ? "ignore" : new TextEncoder().encode(opts.stdin),
    stdout: "pipe",
    stderr: "pipe",
  });
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  return { code, stdout, stderr };
}

/** Runs a release's install.sh through `sh` (the way `curl … | sh` does: the script on stdin). */
export function runInstaller(script: string, env: Record<string, string>, cwd: string): Promise<RunResult> {
  return run(["sh"], { cwd, env, stdin: readFileSync(script, "utf8") });
}

/** Read through one reused buffer: a whole 110 MB binary read at once costs its page faults every time. */
export function sha256File(path: string): string {
  const hasher = new Bun.CryptoHasher("sha256");
  const buf = Buffer.allocUnsafe(1 << 20);
  const fd = openSync(path, "r");
  try {
    for (let n = readSync(fd, buf); n > 0; n = readSync(fd, buf)) hasher.update(buf.subarray(0, n));
  } finally {
    closeSync(fd);
  }
  return hasher.digest("hex");
}

/** A copy of an installed vx (binary, mode and receipt) in another directory: a fresh install without the download. */
export function cloneInstall(fromDir: string, toDir: string): string {
  mkdirSync(toDir, { recursive: true });
  copyFileSync(join(fromDir, "vx"), join(toDir, "vx"));
  copyFileSync(join(fromDir, RECEIPT_NAME), join(toDir, RECEIPT_NAME));
  return realpathSync(join(toDir, "vx"));
}

/** The installer as a release ships it (base and limit written in), without building a release. */
export function installerScript(dir: string): string {
  const path = join(dir, "install.sh");
  writeFileSync(path, installerText(readFileSync(join(REPO, "scripts", "install-release.sh"), "utf8"), BAKED_BASE));
  return path;
}

/**
 * The checksums.txt inputs the installer and `vx upgrade` are both tested against (their one set
 * of rules is written out in src/upgrade/checksums.ts and scripts/install-release.sh). `text`
 * gets the asset's name and its real SHA-256 (lower-case hex); `want` is what must come of it.
 */
export const CHECKSUM_CASES: Array<{ name: string; text: (asset: string, hex: string) => string; want: "ok" | "missing" | "duplicate" | "mismatch" }> = [
  { name: "sha256sum's own format", text: (a, h) => `${h}  install.sh\n${h}  ${a}\n`, want: "ok" },
  { name: "CRLF line ends", text: (a, h) => `${h}  install.sh\r\n${h}  ${a}\r\n`, want: "ok" },
  { name: "upper-case hex", text: (a, h) => `${h.toUpperCase()}  ${a}\n`, want: "ok" },
  { name: "the binary-mode marker", text: (a, h) => `${h} *${a}\n`, want: "ok" },
  { name: "no newline after the last line", text: (a, h) => `${h}  ${a}`, want: "ok" },
  { name: "the asset listed twice with the same sum", text: (a, h) => `${h}  ${a}\n${h} *${a}\n`, want: "duplicate" },
  { name: "the asset listed twice with different sums", text: (a, h) => `${"0".repeat(64)}  ${a}\r\n${h}  ${a}\r\n`, want: "duplicate" },
  { name: "no entry for the asset", text: (_, h) => `${h}  install.sh\n`, want: "missing" },
  { name: "a name the asset's is only the start of", text: (a, h) => `${h}  ${a}.sig\n`, want: "missing" },
  { name: "a sum one digit short", text: (a, h) => `${h.slice(1)}  ${a}\n`, want: "missing" },
  { name: "a tab for the separator", text: (a, h) => `${h}\t${a}\n`, want: "missing" },
  { name: "an empty list", text: () => "", want: "missing" },
  { name: "a wrong sum", text: (a) => `${"ab".repeat(32)}  ${a}\n`, want: "mismatch" },
];

const BLOCK = 512;

/** A ustar header: `type` "0" a file, "2" a symbolic link to `link`, "5" a directory. */
function ustarHeader(name: string, size: number, type: string, link = ""): Uint8Array {
  const h = new Uint8Array(BLOCK);
  const put = (offset: number, text: string) => h.set(new TextEncoder().encode(text), offset);
  const octal = (n: number, width: number) => `${n.toString(8).padStart(width - 1, "0")}\0`;
  put(0, name);
  put(100, octal(0o755, 8));
  put(108, octal(0, 8));
  put(116, octal(0, 8));
  put(124, octal(size, 12));
  put(136, octal(1_700_000_000, 12));
  put(148, "        ");
  put(156, type);
  put(157, link);
  put(257, "ustar\0");
  put(263, "00");
  put(
    148,
    `${h
      .reduce((a, b) => a + b, 0)
      .toString(8)
      .padStart(6, "0")}\0 `,
  );
  return h;
}

/**
 * A hostile release archive at `path`: vx as a symbolic link to `link`, vx as a directory, or a
 * vx of zeros `over` bytes beyond MAX_BINARY_BYTES (a few MB of gzip, streamed, never held whole).
 * Returns its SHA-256.
 */
export async function hostileArchive(path: string, kind: { link: string } | "directory" | { over: number }): Promise<string> {
  const gz = createGzip({ level: 1 });
  const out = createWriteStream(path);
  const closed = new Promise((resolve, reject) => out.on("close", resolve).on("error", reject));
  gz.pipe(out);
  const put = async (bytes: Uint8Array) => {
    if (!gz.write(bytes)) await new Promise((resolve) => gz.once("drain", resolve));
  };
  if (kind === "directory") {
    await put(ustarHeader("vx/", 0, "5"));
  } else if ("link" in kind) {
    await put(ustarHeader("vx", 0, "2", kind.link));
  } else {
    const size = MAX_BINARY_BYTES + kind.over;
    await put(ustarHeader("vx", size, "0"));
    const zeros = new Uint8Array(1 << 20);
    for (let left = size; left > 0; left -= zeros.length) await put(left >= zeros.length ? zeros : zeros.subarray(0, left));
    await put(new Uint8Array((BLOCK - (size % BLOCK)) % BLOCK));
  }
  await put(new Uint8Array(2 * BLOCK));
  gz.end();
  await closed;
  return sha256File(path);
}

/** A release dir for `version` around a hostile archive (see hostileArchive), under `parent`. */
export async function hostileRelease(parent: string, version: string, kind: Parameters<typeof hostileArchive>[1]): Promise<string> {
  const dir = join(parent, `release-${version}`);
  mkdirSync(dir, { recursive: true });
  const hex = await hostileArchive(join(dir, ARCHIVE), kind);
  writeFileSync(join(dir, "version.txt"), `${version}\n`);
  writeFileSync(join(dir, "checksums.txt"), checksumsText({ [ARCHIVE]: hex }));
  return dir;
}

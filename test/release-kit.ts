/**
 * Real releases for the installer and `vx upgrade` tests: `bun run release` for this machine's
 * platform at bumped versions (built once per test run, cached in the run's temp dir), served on
 * 127.0.0.1 in the GitHub Releases layout by a small HTTP server whose faults a test chooses:
 * a missing asset, a tampered archive, or the server going away halfway through a download.
 */
import { copyFileSync, existsSync, mkdirSync, readFileSync, realpathSync, symlinkSync, writeFileSync } from "node:fs";
import { type Server, type Socket, createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { RECEIPT_NAME, archiveName, hostPlatform } from "../src/release-info";
import { archiveOne, checksumsText, sha256 } from "../scripts/release-files";
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
 * The release directory for `version` (host platform only), built on first use in this run.
 * The `older` release is asked for `UNBUILDABLE` as well, with no runtime cache and a proxy to a
 * closed port, so it doubles as a partial release (its exit code and stderr kept in build.log)
 * without a third build.
 */
export function release(version: string): string {
  const dir = join(tmpdir(), "vx-release-cache", version);
  if (existsSync(join(dir, "checksums.txt"))) return dir;
  const partial = version === bumped().older;
  const offline = { BUN_INSTALL_CACHE_DIR: join(dir, ".no-cache"), HTTPS_PROXY: "http://127.0.0.1:9", HTTP_PROXY: "http://127.0.0.1:9", NO_PROXY: "" };
  const res = Bun.spawnSync(
    [process.execPath, join(REPO, "scripts", "release.ts"), "--targets", partial ? `host,${UNBUILDABLE}` : "host", "--version", version, "--out", dir],
    { cwd: REPO, env: { ...process.env, VX_RELEASES_URL: BAKED_BASE, ...(partial ? offline : {}) }, stdout: "pipe", stderr: "pipe" },
  );
  writeFileSync(join(dir, "..", `${version}.build.log`), `exit ${res.exitCode}\n${res.stderr.toString()}`);
  if (!existsSync(join(dir, "checksums.txt")) || (!partial && res.exitCode !== 0)) throw new Error(`release ${version} failed: ${res.stderr.toString()}`);
  return dir;
}

/** What `bun run release` said while building `version` (first line `exit <code>`). */
export function releaseLog(version: string): string {
  release(version);
  return readFileSync(join(tmpdir(), "vx-release-cache", `${version}.build.log`), "utf8");
}

/**
 * A stand-in release for the installer's own paths (pins, fallbacks): an archive made by the
 * release code around a shell script that answers `--version` as vx does, in milliseconds.
 */
export async function tinyRelease(version: string): Promise<string> {
  const dir = join(tmpdir(), "vx-release-cache", `tiny-${version}`);
  if (existsSync(join(dir, "checksums.txt"))) return dir;
  mkdirSync(dir, { recursive: true });
  const archive = await archiveOne("vx", new TextEncoder().encode(`#!/bin/sh\necho "vx ${version}"\n`), Date.now() / 1000);
  writeFileSync(join(dir, ARCHIVE), archive);
  writeFileSync(join(dir, "version.txt"), `${version}\n`);
  writeFileSync(join(dir, "checksums.txt"), checksumsText({ [ARCHIVE]: sha256(archive) }));
  return dir;
}

export type Fault = "missing" | "tamper" | "cut";

/** A release server on 127.0.0.1: `<base>/download/v<v>/<asset>` and `<base>/latest/download/<asset>`. */
export class ReleaseServer {
  latest = "";
  readonly releases = new Map<string, string>();
  /** Per asset name (any version): what goes wrong when it is asked for. */
  readonly faults = new Map<string, Fault>();
  /** Every path asked for, in order. */
  readonly requests: string[] = [];
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
    if (!dir || !existsSync(join(dir, name)) || this.faults.get(name) === "missing") return undefined;
    return { name, bytes: readFileSync(join(dir, name)) };
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
const INSTALLER_TOOLS = ["curl", "wget", "tar", "gzip", "sha256sum", "shasum", "cut", "awk", "sysctl"];

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

export function sha256File(path: string): string {
  return new Bun.CryptoHasher("sha256").update(readFileSync(path)).digest("hex");
}

/** A copy of an installed vx (binary, mode and receipt) in another directory: a fresh install without the download. */
export function cloneInstall(fromDir: string, toDir: string): string {
  mkdirSync(toDir, { recursive: true });
  copyFileSync(join(fromDir, "vx"), join(toDir, "vx"));
  copyFileSync(join(fromDir, RECEIPT_NAME), join(toDir, RECEIPT_NAME));
  return realpathSync(join(toDir, "vx"));
}

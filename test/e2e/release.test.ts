// `bun run release` and its installer for real: a host-platform release at a bumped version,
// served from 127.0.0.1 in the GitHub Releases layout, installed through `sh` into a temp HOME.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { RECEIPT_NAME } from "../../src/release-info";
import { REPO, writeExecutable } from "../helpers";
import { ARCHIVE, BAKED_BASE, HOST, RELEASE_BUILD_TIMEOUT, ReleaseServer, UNBUILDABLE, bumped, installerPath, release, releaseLog, run, runInstaller, sha256File, tinyRelease } from "../release-kit";

const { older, newer } = bumped();
/** A stand-in release (a script for a binary) for the installer's pin and fallback paths. */
const TINY = "0.0.1-tiny";
let server: ReleaseServer;
/** PATH for running sha256sum, tar and sh on the release itself. */
let toolsPath: string;
let toolsDir: string;

beforeAll(async () => {
  toolsDir = mkdtempSync(join(tmpdir(), "vx-rel-tools-"));
  toolsPath = installerPath(toolsDir);
  server = await ReleaseServer.start();
  server
    .serve(older)
    .serve(newer)
    .serve(TINY, await tinyRelease(TINY));
  server.latest = newer;
}, RELEASE_BUILD_TIMEOUT);
afterAll(async () => {
  await server?.stop();
  rmSync(toolsDir, { recursive: true, force: true });
});

/** A temp HOME with a bin dir for PATH; `omit` leaves some of the installer's tools out. */
function box(omit: string[] = []) {
  const base = mkdtempSync(join(tmpdir(), "vx-rel-"));
  const home = join(base, "home");
  const bin = join(base, "bin");
  mkdirSync(home, { recursive: true });
  const env: Record<string, string> = { HOME: home, PATH: installerPath(bin, omit), VX_RELEASES_URL: server.base };
  return { home, bin, env, dest: join(home, ".local", "bin"), [Symbol.dispose]: () => rmSync(base, { recursive: true, force: true }) };
}

async function gunzippedHead(path: string, n: number): Promise<Uint8Array> {
  const reader = Bun.file(path).stream().pipeThrough(new DecompressionStream("gzip")).getReader();
  const out = new Uint8Array(n);
  let got = 0;
  while (got < n) {
    const { value, done } = await reader.read();
    if (done) break;
    out.set(value.subarray(0, n - got), got);
    got += Math.min(value.length, n - got);
  }
  await reader.cancel();
  return out;
}

const installer = () => join(release(newer), "install.sh");
/** Everything in the install dir but the binary and the receipt: staging files must never be left. */
const leftovers = (dir: string) => (existsSync(dir) ? readdirSync(dir).filter((n) => n !== "vx" && n !== RECEIPT_NAME) : []);

describe("bun run release", () => {
  test("writes the host archive, checksums sha256sum -c accepts, the installer and the version", async () => {
    const dir = release(newer);
    const names = readdirSync(dir).sort();
    expect(names).toEqual([ARCHIVE, "checksums.txt", "install.sh", "version.txt", "vx.rb"].sort());
    expect(readFileSync(join(dir, "version.txt"), "utf8")).toBe(`${newer}\n`);
    const check = await run(["sha256sum", "-c", "checksums.txt"], { cwd: dir, env: { PATH: toolsPath } });
    expect(check.stdout).toContain(`${ARCHIVE}: OK`);
    expect(check.code).toBe(0);
    // The archive's one entry is an executable `vx` (read from its first tar header only).
    const header = await gunzippedHead(join(dir, ARCHIVE), 512);
    expect(new TextDecoder().decode(header.subarray(0, 3))).toBe("vx\0");
    expect(new TextDecoder().decode(header.subarray(100, 107))).toBe("0000755");
    const script = readFileSync(join(dir, "install.sh"), "utf8");
    expect(script).toContain(`base=\${VX_RELEASES_URL:-${BAKED_BASE}}`);
    expect(statSync(join(dir, "install.sh")).mode & 0o111).not.toBe(0);
    expect((await run(["sh", "-n", join(dir, "install.sh")], { cwd: dir, env: { PATH: toolsPath } })).code).toBe(0);
  });

  test("the formula has the host's URL and checksum, installs completions, tests --version", async () => {
    const dir = release(newer);
    const rb = readFileSync(join(dir, "vx.rb"), "utf8");
    const sum = readFileSync(join(dir, "checksums.txt"), "utf8")
      .split("\n")
      .find((l) => l.endsWith(`  ${ARCHIVE}`))
      ?.split(" ")[0];
    expect(rb).toContain(`url "${BAKED_BASE}/download/v${newer}/${ARCHIVE}"\n      sha256 "${sum}"`);
    expect(rb).toContain(`${HOST.os === "darwin" ? "on_macos" : "on_linux"} do\n    ${HOST.arch === "arm64" ? "on_arm" : "on_intel"} do`);
    expect(rb).toContain(`version "${newer}"`);
    expect(rb).toContain('bin.install "vx"');
    expect(rb).toContain('generate_completions_from_executable(bin/"vx", "completion")');
    expect(rb).toContain('test do\n    assert_match "vx #{version}", shell_output("#{bin}/vx --version")');
    // Structure, whether or not Ruby is here: every `do`/`def`/`class` closed by its own `end`.
    const opens = rb.split("\n").filter((l) => /^\s*(class |def )|\sdo$/.test(l)).length;
    const ends = rb.split("\n").filter((l) => /^\s*end$/.test(l)).length;
    expect(ends).toBe(opens);
  });

  test.skipIf(!Bun.which("ruby"))("the formula is valid Ruby (ruby -c)", async () => {
    const r = await run(["ruby", "-c", join(release(newer), "vx.rb")], { cwd: REPO, env: { PATH: process.env.PATH ?? "" } });
    expect(r.stdout).toContain("Syntax OK");
  });

  test("a platform that cannot be built is named with the reason; the host is still released", async () => {
    // The older release was asked for UNBUILDABLE too, with Bun unable to fetch its runtime.
    const log = releaseLog(older);
    expect(log).toStartWith("exit 1\n");
    expect(log).toMatch(new RegExp(`could not build ${UNBUILDABLE} \\(bun-${UNBUILDABLE}\\): .*download.*; check the network`));
    expect(log).toContain(`release: incomplete, ${UNBUILDABLE} could not be built`);
    const dir = release(older);
    expect(existsSync(join(dir, ARCHIVE))).toBe(true);
    expect(readFileSync(join(dir, "checksums.txt"), "utf8")).not.toContain(UNBUILDABLE);
    expect(readFileSync(join(dir, "vx.rb"), "utf8")).not.toContain(UNBUILDABLE);
    expect(readFileSync(join(dir, "vx.rb"), "utf8")).toContain(`/${ARCHIVE}"`);
  });
});

describe("install.sh through sh", () => {
  test("installs the latest into ~/.local/bin with a receipt, says PATH and what next", async () => {
    using b = box();
    const started = performance.now();
    const r = await runInstaller(installer(), b.env, b.home);
    const ms = Math.round(performance.now() - started);
    expect(r.code).toBe(0);
    console.error(`install from the local server: ${ms} ms (${(statSync(join(release(newer), ARCHIVE)).size / 1e6).toFixed(1)} MB archive)`);
    const vx = join(b.dest, "vx");
    expect(statSync(vx).mode & 0o777).toBe(0o755);
    expect((await run([vx, "--version"], { cwd: b.home, env: b.env })).stdout).toBe(`vx ${newer}\n`);
    expect(JSON.parse(readFileSync(join(b.dest, RECEIPT_NAME), "utf8"))).toEqual({ installer: "install.sh", version: newer, os: HOST.os, arch: HOST.arch, releases: server.base });
    expect(r.stderr).toContain(`vx install: installed vx ${newer} to ${vx}\n`);
    expect(r.stderr).toContain(`vx install: ${b.dest} is not on your PATH; add it`);
    expect(r.stderr).toContain("vx install: next: in your project, run 'vx init', then 'vx doctor'\n");
    expect(server.requests).toContain(`/releases/latest/download/${ARCHIVE}`);
    expect(leftovers(b.dest)).toEqual([]);
  });

  test("VX_VERSION pins, VX_INSTALL_DIR on PATH, an old vx replaced whole; wget and shasum stand in for curl and sha256sum", async () => {
    // Fallbacks are only tried where this machine has them; the pin and the directory always are.
    const fallbacks = Bun.which("wget") && Bun.which("shasum") ? ["curl", "sha256sum"] : [];
    using b = box(fallbacks);
    const dest = join(b.home, "tools");
    mkdirSync(dest);
    writeExecutable(join(dest, "vx"), "#!/bin/sh\necho old\n");
    const env = { ...b.env, VX_VERSION: `v${TINY}`, VX_INSTALL_DIR: dest, PATH: `${dest}:${b.env.PATH}` };
    const r = await runInstaller(installer(), env, b.home);
    expect(r.code).toBe(0);
    expect((await run([join(dest, "vx"), "--version"], { cwd: b.home, env: b.env })).stdout).toBe(`vx ${TINY}\n`);
    expect(statSync(join(dest, "vx")).mode & 0o777).toBe(0o755);
    expect(r.stderr).toContain(`vx install: ${dest} is on your PATH\n`);
    expect(server.requests).toContain(`/releases/download/v${TINY}/${ARCHIVE}`);
    expect(existsSync(join(b.home, ".local"))).toBe(false);
    expect(leftovers(dest)).toEqual([]);
  });

  test("a tampered archive is refused and nothing is installed; an existing vx stays byte-identical", async () => {
    using b = box();
    mkdirSync(b.dest, { recursive: true });
    writeExecutable(join(b.dest, "vx"), "#!/bin/sh\necho mine\n");
    const before = sha256File(join(b.dest, "vx"));
    server.faults.set(ARCHIVE, "tamper");
    try {
      const r = await runInstaller(installer(), b.env, b.home);
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(new RegExp(`vx install: checksum mismatch for ${ARCHIVE.replaceAll(".", "\\.")} \\(expected [0-9a-f]{64}, got [0-9a-f]{64}\\); nothing was installed\\n$`));
    } finally {
      server.faults.clear();
    }
    expect(sha256File(join(b.dest, "vx"))).toBe(before);
    expect(leftovers(b.dest)).toEqual([]);
  });

  test("a missing asset or a server gone midway: one line, nothing installed", async () => {
    using b = box();
    for (const fault of ["missing", "cut"] as const) {
      server.faults.set(ARCHIVE, fault);
      try {
        const r = await runInstaller(installer(), b.env, b.home);
        expect(r.code).toBe(1);
        expect(r.stderr).toContain(`vx install: could not download ${server.base}/latest/download/${ARCHIVE} (no such release, or the network is down); nothing was installed\n`);
      } finally {
        server.faults.clear();
      }
      expect(existsSync(b.dest)).toBe(false);
    }
  });

  test("another OS or architecture is refused with a clear line", async () => {
    using b = box();
    for (const [s, m, line] of [
      ["FreeBSD", "amd64", 'unsupported operating system "FreeBSD": vx is released for Linux and macOS only'],
      ["Linux", "riscv64", 'unsupported architecture "riscv64": vx is released for x64 and arm64 only'],
    ]) {
      writeExecutable(join(b.bin, "uname"), `#!/bin/sh\ncase "$1" in -s) echo ${s} ;; -m) echo ${m} ;; esac\n`);
      const r = await runInstaller(installer(), b.env, b.home);
      expect(r.stderr).toBe(`vx install: ${line}\n`);
      expect(r.code).toBe(1);
    }
    expect(server.requests.filter((p) => p.includes("riscv") || p.includes("freebsd"))).toEqual([]);
  });

  test("the template in a checkout refuses without a releases base", async () => {
    using b = box();
    writeFileSync(join(b.home, "install.sh"), readFileSync(join(REPO, "scripts", "install-release.sh")));
    const { VX_RELEASES_URL: _, ...env } = b.env;
    const r = await runInstaller(join(b.home, "install.sh"), env, b.home);
    expect(r.stderr).toBe("vx install: this is the installer's template; run the install.sh of a release, or set VX_RELEASES_URL\n");
    expect(r.code).toBe(1);
  });
});

// `vx upgrade` for real (CMD-UPGRADE-01/02): a release installed through install.sh, then a newer
// one served from 127.0.0.1 in the GitHub Releases layout; the failures leave the binary as it was.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { chmodSync, copyFileSync, existsSync, linkSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, symlinkSync, unlinkSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MAX_BINARY_BYTES, RECEIPT_NAME } from "../../src/release-info";
import { HOOK_COMMAND } from "../../src/scaffold/hook";
import { VX_BIN, alive, sandbox, stopSentinels, vx as runDistVx, waitFor, writeExecutable } from "../helpers";
import { ARCHIVE, RELEASE_BUILD_TIMEOUT, ReleaseServer, bumped, cloneInstall, hostileRelease, installerPath, release, run, runInstaller, sha256File } from "../release-kit";

const { older, newer } = bumped();
let server: ReleaseServer;
/** install.sh's own install of `older`, cloned into each test's HOME. */
let installed: string;
let work: string;

beforeAll(async () => {
  server = await ReleaseServer.start();
  server.serve(older).serve(newer);
  server.latest = older;
  work = mkdtempSync(join(tmpdir(), "vx-upg-"));
  const home = join(work, "home");
  mkdirSync(home);
  const r = await runInstaller(join(release(older), "install.sh"), { HOME: home, PATH: installerPath(join(work, "tools")), VX_RELEASES_URL: server.base }, home);
  if (r.code !== 0) throw new Error(`install.sh failed: ${r.stderr}`);
  installed = join(home, ".local", "bin");
  server.latest = newer;
}, RELEASE_BUILD_TIMEOUT);
afterAll(async () => {
  await server?.stop();
  rmSync(work, { recursive: true, force: true });
});

/** A sandbox (HOME, git project) with the installed `older` vx in ~/.local/bin. */
function world() {
  const s = sandbox();
  const dir = join(s.home, ".local", "bin");
  const vx = cloneInstall(installed, dir);
  s.env.VX_RELEASES_URL = server.base;
  const leftovers = () => readdirSync(dir).filter((n) => n !== "vx" && n !== RECEIPT_NAME);
  return { s, dir, vx, leftovers, run: (args: string[], cwd = s.project) => run([vx, ...args], { cwd, env: s.env }) };
}

describe("vx upgrade, installer-script install", () => {
  test("--check says what is available and changes nothing; the latest is never a downgrade", async () => {
    const w = world();
    using _ = w.s;
    const before = sha256File(w.vx);
    const seen = server.requests.length;
    const r = await w.run(["upgrade", "--check"]);
    expect(r).toEqual({ code: 0, stdout: `vx ${older} -> ${newer} available\n`, stderr: "" });
    expect(server.requests.slice(seen)).toEqual(["/releases/latest/download/version.txt"]);
    server.latest = older;
    try {
      expect((await w.run(["upgrade", "--check"])).stdout).toBe(`vx ${older} is the latest\n`);
      const up = await w.run(["upgrade", "--yes"], w.s.home);
      expect(up).toEqual({ code: 0, stdout: "", stderr: `vx ${older} is the latest\n` });
    } finally {
      server.latest = newer;
    }
    expect(sha256File(w.vx)).toBe(before);
  });

  test("installed from a mirror, it upgrades from that mirror with no VX_RELEASES_URL set", async () => {
    const w = world();
    using _ = w.s;
    expect(JSON.parse(readFileSync(join(w.dir, RECEIPT_NAME), "utf8")).releases).toBe(server.base);
    const { VX_RELEASES_URL: __, ...env } = w.s.env;
    const seen = server.requests.length;
    const r = await run([w.vx, "upgrade", "--check"], { cwd: w.s.project, env });
    expect(r).toEqual({ code: 0, stdout: `vx ${older} -> ${newer} available\n`, stderr: "" });
    expect(server.requests.slice(seen)).toEqual(["/releases/latest/download/version.txt"]);
  });

  test("--yes: the binary replaced in place keeping its mode, the new version, then the new binary refreshes the scaffold", async () => {
    const w = world();
    using _ = w.s;
    expect((await w.run(["init", "--yes"])).code).toBe(0);
    // A hook gone stale and a config an older vx wrote: what the scaffold step must put right.
    writeFileSync(join(w.s.project, ".claude", "settings.json"), '{\n  "hooks": {}\n}\n');
    chmodSync(w.vx, 0o750);
    const started = performance.now();
    const r = await w.run(["upgrade", "--yes"]);
    const ms = Math.round(performance.now() - started);
    expect(r.stderr).toContain(`vx: upgrading vx ${older} -> ${newer}\n`);
    expect(r.stderr).toContain(`vx: upgraded ${w.vx} to vx ${newer}; a running sentinel retires by itself`);
    expect(r.stderr).toContain(`vx upgrade will refresh ${w.s.project}:`);
    expect(r.stderr).not.toContain("\r"); // no progress drawn on a pipe
    expect(r.code).toBe(0);
    console.error(`upgrade from the local server: ${ms} ms`);
    expect((await run([w.vx, "--version"], { cwd: w.s.home, env: w.s.env })).stdout).toBe(`vx ${newer}\n`);
    expect(statSync(w.vx).mode & 0o777).toBe(0o750);
    expect(JSON.parse(readFileSync(join(w.dir, RECEIPT_NAME), "utf8"))).toMatchObject({ version: newer, releases: server.base });
    expect(w.leftovers()).toEqual([]);
    // Written by the new binary: only it knows it is `newer`.
    expect(JSON.parse(readFileSync(join(w.s.project, ".vexillum", "config.json"), "utf8")).vx_version).toBe(newer);
    expect(r.stdout).toContain("updated .claude/settings.json\n");
    expect(readFileSync(join(w.s.project, ".claude", "settings.json"), "utf8")).toContain(JSON.stringify(HOOK_COMMAND));
  });

  test("a tampered archive, a missing asset, the server gone midway, no server: one line, the binary byte-identical", async () => {
    const w = world();
    using _ = w.s;
    const before = sha256File(w.vx);
    const receipt = readFileSync(join(w.dir, RECEIPT_NAME), "utf8");
    const hex = "[0-9a-f]{64}";
    const esc = (t: string) => t.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
    const tail = " - nothing was changed; check the network and the release, then run 'vx upgrade' again";
    const cases: Array<[string, () => void, RegExp]> = [
      [
        "tamper",
        () => server.faults.set(ARCHIVE, "tamper"),
        new RegExp(`^vx: checksum mismatch for ${esc(ARCHIVE)} \\(expected ${hex}, got ${hex}\\): the download is damaged or not the release's - nothing was changed\\n$`),
      ],
      ["missing", () => server.faults.set(ARCHIVE, "missing"), new RegExp(`^vx: ${esc(`${server.base}/download/v${newer}/${ARCHIVE}`)}: not found \\(HTTP 404\\)${esc(tail)}\\n$`)],
      ["cut", () => server.faults.set(ARCHIVE, "cut"), new RegExp(`^vx: the download of ${esc(ARCHIVE)} (broke off after \\d+ bytes \\(.+\\)|ended early \\(\\d+ of \\d+ bytes\\))${esc(tail)}\\n$`)],
    ];
    for (const [name, fault, line] of cases) {
      fault();
      try {
        const r = await w.run(["upgrade", "--yes"], w.s.home);
        expect({ name, code: r.code, stdout: r.stdout }).toEqual({ name, code: 1, stdout: "" });
        // The step it was on, then the one error line.
        expect(r.stderr).toStartWith(`vx: upgrading vx ${older} -> ${newer}\n`);
        expect(r.stderr.slice(`vx: upgrading vx ${older} -> ${newer}\n`.length)).toMatch(line);
      } finally {
        server.faults.clear();
      }
      expect(sha256File(w.vx)).toBe(before);
      expect(w.leftovers()).toEqual([]);
    }
    // A port nobody listens on: the network is down.
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const port = (closed.address() as { port: number }).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const down = await run([w.vx, "upgrade", "--yes"], { cwd: w.s.home, env: { ...w.s.env, VX_RELEASES_URL: `http://127.0.0.1:${port}/releases` } });
    expect(down.code).toBe(1);
    expect(down.stderr).toMatch(new RegExp(`^vx: cannot reach http://127\\.0\\.0\\.1:${port}/releases/latest/download/version\\.txt \\(.+\\)${esc(tail)}\\n$`));
    expect(sha256File(w.vx)).toBe(before);
    expect(readFileSync(join(w.dir, RECEIPT_NAME), "utf8")).toBe(receipt);
  });

  /** Upgrades to a hostile release per case: each refused in one line, nothing changed, no temp file left. */
  async function refusals(cases: ReadonlyArray<readonly [string, Parameters<typeof hostileRelease>[2], string]>) {
    const w = world();
    using _ = w.s;
    const before = sha256File(w.vx);
    const receipt = readFileSync(join(w.dir, RECEIPT_NAME), "utf8");
    const tmp = join(w.s.home, "tmp");
    mkdirSync(tmp);
    try {
      for (const [version, kind, why] of cases) {
        server.serve(version, await hostileRelease(work, version, kind));
        server.latest = version;
        const r = await run([w.vx, "upgrade", "--yes"], { cwd: w.s.home, env: { ...w.s.env, TMPDIR: tmp } });
        expect({ version, code: r.code, stdout: r.stdout, stderr: r.stderr }).toEqual({
          version,
          code: 1,
          stdout: "",
          stderr: `vx: upgrading vx ${older} -> ${version}\nvx: ${ARCHIVE} ${why} - nothing was changed\n`,
        });
        expect(sha256File(w.vx)).toBe(before);
        expect(w.leftovers()).toEqual([]);
        expect(readdirSync(tmp)).toEqual([]);
      }
    } finally {
      server.latest = newer;
    }
    expect(readFileSync(join(w.dir, RECEIPT_NAME), "utf8")).toBe(receipt);
  }

  test("an archive whose vx is a symbolic link or a directory: refused in one line, the binary byte-identical, the link's target untouched", async () => {
    const victim = join(work, "victim");
    writeFileSync(victim, "precious\n", { mode: 0o600 });
    await refusals([
      ["9.0.0-link", { link: victim }, "holds vx as a symbolic link, not a regular file; refusing it"],
      ["9.0.0-dir", "directory", "holds vx as a directory, not a regular file; refusing it"],
    ]);
    expect({ text: readFileSync(victim, "utf8"), mode: statSync(victim).mode & 0o777 }).toEqual({ text: "precious\n", mode: 0o600 });
  });

  test("an archive whose vx unpacks beyond the size limit: refused in one line, the binary byte-identical", async () => {
    await refusals([["9.0.0-big", { over: 1 }, `holds a vx of ${MAX_BINARY_BYTES + 1} bytes, over the ${MAX_BINARY_BYTES}-byte limit for a vx binary; refusing it`]]);
  });

  test("a source build, a renamed copy and a vx without the installer's receipt are refused with the reinstall line", async () => {
    const w = world();
    using _ = w.s;
    const reinstall = `reinstall with: curl -fsSL ${server.base}/latest/download/install.sh | sh`;
    const source = await runDistVx(["upgrade", "--yes"], { cwd: w.s.home, env: w.s.env });
    expect(source.code).toBe(1);
    expect(source.stderr).toStartWith(`vx: ${VX_BIN} was built from a checkout, not installed from a release, so vx upgrade cannot replace it - ${reinstall}`);
    expect(source.stderr).toEndWith("'vx upgrade --scaffold-only' still refreshes a project's scaffold\n");
    const renamed = join(w.dir, "vexillum");
    linkOrCopy(w.vx, renamed);
    const r1 = await run([renamed, "upgrade", "--yes"], { cwd: w.s.home, env: w.s.env });
    expect(r1.stderr).toStartWith(`vx: ${renamed} is a renamed copy of vx (the installer installs it as vx), so vx upgrade cannot replace it - ${reinstall}`);
    expect(r1.code).toBe(1);
    unlinkSync(renamed);
    unlinkSync(join(w.dir, RECEIPT_NAME));
    const r2 = await w.run(["upgrade", "--yes"], w.s.home);
    expect(r2.stderr).toStartWith(`vx: ${w.vx} was not installed by the installer script (no ${join(w.dir, RECEIPT_NAME)}), so vx upgrade cannot replace it`);
    expect(r2.code).toBe(1);
  });

  test("on a terminal the download shows progress, and a running sentinel retires by itself (SEN-22)", async () => {
    const w = world();
    using _ = w.s;
    const sentinel = Bun.spawn([w.vx, "sentinel"], { cwd: w.s.home, env: { ...w.s.env, VX_TIME_SCALE: "0.01" }, stdout: "pipe", stderr: "pipe" });
    try {
      await waitFor(() => existsSync(join(w.s.home, ".vexillum", "sentinel.json")), 10_000, "the sentinel to start");
      // util-linux `script` gives the upgrade a pseudo-terminal; elsewhere the upgrade runs on a pipe.
      const tty = process.platform === "linux" ? Bun.which("script", { PATH: process.env.PATH ?? "" }) : null;
      // The test's own path, quoted for script's shell.
      const argv = tty ? [tty, "-qec", `'${w.vx}' upgrade --yes`, "/dev/null"] : [w.vx, "upgrade", "--yes"];
      const r = await run(argv, { cwd: w.s.home, env: w.s.env });
      const out = r.stdout + r.stderr;
      expect(out).toContain(`upgraded ${w.vx} to vx ${newer}`);
      if (tty) expect(out).toMatch(new RegExp(`\\r${ARCHIVE.replaceAll(".", "\\.")}  [0-9.]+ / [0-9.]+ MB  100%`));
      expect(await Promise.race([sentinel.exited, Bun.sleep(15_000).then(() => "still running")])).toBe(0);
      const log = await new Response(sentinel.stdout).text();
      expect(log).toContain(`sentinel: retiring, ${w.vx} was replaced on disk - the next vx dispatch, prompt or Stop hook await starts a fresh one\n`);
    } finally {
      if (alive(sentinel.pid)) await stopSentinels(w.s.home, [sentinel.pid]);
    }
  });
});

/** A second name for the same file (a copy where a hard link is not possible). */
function linkOrCopy(from: string, to: string): void {
  try {
    linkSync(from, to);
  } catch {
    copyFileSync(from, to);
  }
}

describe("vx upgrade, Homebrew install", () => {
  test("runs brew upgrade <formula>, then the scaffold step with the binary brew put there", async () => {
    using s = sandbox();
    const cellar = join(s.home, "brew", "Cellar", "vx", older, "bin");
    mkdirSync(cellar, { recursive: true });
    linkOrCopy(VX_BIN, join(cellar, "vx"));
    const prefixBin = join(s.home, "brew", "bin");
    mkdirSync(prefixBin);
    symlinkSync(join(cellar, "vx"), join(prefixBin, "vx"));
    writeExecutable(join(s.bin, "brew"), `#!/bin/sh\necho "brew $*" >> "${join(s.home, "brew.log")}"\n`);
    expect((await runDistVx(["init", "--yes"], { cwd: s.project, env: s.env })).code).toBe(0);
    const r = await run([join(prefixBin, "vx"), "upgrade", "--yes"], { cwd: s.project, env: s.env });
    expect(r.stderr).toContain("vx: installed by Homebrew, running: brew upgrade vx\n");
    expect(r.code).toBe(0);
    expect(readFileSync(join(s.home, "brew.log"), "utf8")).toBe("brew upgrade vx\n");
    expect(r.stdout).toContain("unchanged .claude/settings.json\n");
    const failing = await run([join(prefixBin, "vx"), "upgrade", "--yes"], { cwd: s.home, env: { ...s.env, PATH: `${join(s.home, "none")}:${s.env.PATH.split(":").slice(1).join(":")}` } });
    expect(failing.stderr).toContain("vx: brew upgrade vx failed (");
    expect(failing.code).toBe(1);
  });
});

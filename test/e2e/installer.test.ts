// scripts/install.sh in a sandbox: a copy of the scripts and package.json, a fake npm and fake bun
// on a PATH that holds nothing else but basic tools, so nothing is downloaded or installed for real.
// Then the release's installer (scripts/install-release.sh) run through `sh` against a release
// server on 127.0.0.1, given hostile archives and checksum lists.
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { copyFileSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MAX_BINARY_BYTES, RECEIPT_NAME } from "../../src/release-info";
import { REPO, waitFor, writeExecutable } from "../helpers";
import { ARCHIVE, CHECKSUM_CASES, ReleaseServer, hostileRelease, installerPath, installerScript, run, runInstaller, sha256File, tinyRelease } from "../release-kit";
import { toolPath } from "../tool-path";

const WANT: string = JSON.parse(readFileSync(join(REPO, "package.json"), "utf8")).devDependencies["bun-types"];

/** A bun that logs each call and "builds" a dist/vx naming the bun version that built it. */
const FAKE_BUN = `#!/bin/sh
echo "bun@@V@ $*" >> "$FAKE_LOG"
case "$1" in
  --version) echo "@V@" ;;
  install) ;;
  run)
    [ "$2" = build ] || exit 1
    mkdir -p dist
    printf '#!/bin/sh\\necho "vx 0.1.0 (built by bun @V@)"\\n' > dist/vx
    chmod 755 dist/vx ;;
  *) exit 1 ;;
esac
`;

/** An npm that knows `prefix -g` and `install [-g] [--prefix <dir>] bun@<v>` (a fake bun into <prefix>/bin). */
const FAKE_NPM = `#!/bin/sh
echo "npm $*" >> "$FAKE_LOG"
if [ "$1 $2" = "prefix -g" ]; then echo "$FAKE_NPM_PREFIX"; exit 0; fi
[ "$1" = install ] || exit 1
shift
prefix=$FAKE_NPM_PREFIX
version=
while [ $# -gt 0 ]; do
  case "$1" in
    -g) ;;
    --prefix) prefix=$2; shift ;;
    bun@*) version=\${1#bun@} ;;
    *) exit 1 ;;
  esac
  shift
done
[ -n "$version" ] || exit 1
if [ "$prefix" = "$FAKE_NPM_PREFIX" ] && [ -n "$FAKE_NPM_GLOBAL_FAILS" ]; then echo "npm error code EACCES" >&2; exit 243; fi
mkdir -p "$prefix/bin"
sed "s/@V@/$version/g" "$FAKE_BUN_TEMPLATE" > "$prefix/bin/bun"
chmod 755 "$prefix/bin/bun"
`;

type Box = { base: string; checkout: string; fakes: string; home: string; dest: string; npmPrefix: string; log: string; env: Record<string, string> };

let box: Box | undefined;
afterEach(() => {
  if (box) rmSync(box.base, { recursive: true, force: true });
  box = undefined;
});

/** The sandbox; `npm` and `bun` (a version) say which fakes are on PATH. */
function installerBox(opts: { npm: boolean; bun?: string }): Box {
  const base = mkdtempSync(join(tmpdir(), "vx-install-"));
  const checkout = join(base, "checkout");
  const fakes = join(base, "fakes");
  const tools = join(base, "tools");
  const home = join(base, "home");
  for (const d of [join(checkout, "scripts"), fakes, tools, home]) mkdirSync(d, { recursive: true });
  for (const f of ["scripts/install.sh", "scripts/bun-version.sh", "package.json"]) copyFileSync(join(REPO, f), join(checkout, f));
  // The real tools without the real bun, so the only bun the script can find is a fake one.
  for (const name of readdirSync(toolPath())) if (name !== "bun") symlinkSync(readlinkSync(join(toolPath(), name)), join(tools, name));
  writeFileSync(join(base, "fake-bun"), FAKE_BUN);
  if (opts.npm) writeExecutable(join(fakes, "npm"), FAKE_NPM);
  if (opts.bun) writeExecutable(join(fakes, "bun"), FAKE_BUN.replaceAll("@V@", opts.bun));
  const b: Box = {
    base,
    checkout,
    fakes,
    home,
    dest: join(base, "dest"),
    npmPrefix: join(base, "npm-global"),
    log: join(base, "calls.log"),
    env: {},
  };
  writeFileSync(b.log, "");
  b.env = {
    HOME: home,
    PATH: `${fakes}:${tools}`,
    VX_INSTALL_DIR: b.dest,
    FAKE_LOG: b.log,
    FAKE_NPM_PREFIX: b.npmPrefix,
    FAKE_BUN_TEMPLATE: join(base, "fake-bun"),
  };
  box = b;
  return b;
}

async function install(b: Box): Promise<{ code: number; stderr: string; calls: string[] }> {
  const proc = Bun.spawn([join(b.checkout, "scripts", "install.sh")], { cwd: b.home, env: b.env, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  const [, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  return { code, stderr, calls: readFileSync(b.log, "utf8").split("\n").filter(Boolean) };
}

describe("scripts/install.sh", () => {
  test("bun missing: installs the pinned bun with npm and finds it through npm's prefix when that is not on PATH", async () => {
    const b = installerBox({ npm: true });
    const r = await install(b);
    const npmBin = join(b.npmPrefix, "bin");
    expect(r.stderr).toContain(`install: bun not found, installing bun@${WANT} with npm (npm install -g)\n`);
    expect(r.stderr).toContain(`install: npm put bun in ${npmBin}, which is not on your PATH; this install uses it from there (add ${npmBin} to PATH to run bun yourself)\n`);
    expect(r.stderr).not.toContain("command not found");
    expect(r.calls).toContain(`npm install -g bun@${WANT}`);
    expect(r.calls).toContain(`bun@${WANT} run build`);
    expect(r.stderr).toContain(`installed vx 0.1.0 (built by bun ${WANT}) to ${join(b.dest, "vx")}\n`);
    expect(r.code).toBe(0);
  });

  test("another bun on PATH: says which it found and which it wants, and builds with the pinned one only", async () => {
    const b = installerBox({ npm: true, bun: "1.0.0" });
    const r = await install(b);
    const privateDir = join(b.home, ".cache", "vx", `bun-${WANT}`);
    expect(r.stderr).toContain(`install: found bun 1.0.0 at ${join(b.fakes, "bun")}, but this checkout builds with bun ${WANT}\n`);
    expect(r.stderr).toContain(`install: installing bun@${WANT} with npm into ${privateDir} for this build (the bun at ${join(b.fakes, "bun")} is left as it is)\n`);
    expect(r.calls).toContain(`npm install -g --prefix ${privateDir} bun@${WANT}`);
    expect(r.calls.filter((c) => c.startsWith("bun@1.0.0 "))).toEqual(["bun@1.0.0 --version"]);
    expect(r.calls).toContain(`bun@${WANT} install --frozen-lockfile`);
    expect(r.stderr).toContain(`installed vx 0.1.0 (built by bun ${WANT}) to ${join(b.dest, "vx")}\n`);
    expect(r.code).toBe(0);
    // The next install reuses the private bun instead of installing it again.
    writeFileSync(b.log, "");
    const again = await install(b);
    expect(again.stderr).toContain(`install: using bun ${WANT} from ${privateDir}\n`);
    expect(again.calls.filter((c) => c.startsWith("npm "))).toEqual([]);
    expect(again.code).toBe(0);
  });

  test("another bun and no npm: refuses, naming both versions and what to do, and builds nothing", async () => {
    const b = installerBox({ npm: false, bun: "1.0.0" });
    const r = await install(b);
    expect(r.stderr).toContain(`install: found bun 1.0.0 at ${join(b.fakes, "bun")}, but this checkout builds with bun ${WANT}\n`);
    expect(r.stderr).toContain(
      `install: npm is missing, so bun ${WANT} cannot be installed for this build; install bun ${WANT} (or Node.js with npm, and this script installs it), then run this again\n`,
    );
    expect(r.calls).toEqual(["bun@1.0.0 --version"]);
    expect(existsSync(join(b.dest, "vx"))).toBe(false);
    expect(r.code).toBe(1);
  });

  test("npm install -g failing (no permission): the pinned bun goes into the private directory instead", async () => {
    const b = installerBox({ npm: true });
    b.env.FAKE_NPM_GLOBAL_FAILS = "1";
    const r = await install(b);
    const privateDir = join(b.home, ".cache", "vx", `bun-${WANT}`);
    expect(r.stderr).toContain(`install: npm install -g failed (no permission for npm's global directory?); installing bun@${WANT} into ${privateDir} instead\n`);
    expect(r.calls).toContain(`bun@${WANT} run build`);
    expect(r.code).toBe(0);
  });

  test("a bun-types pin that is not one exact version is refused before anything runs", async () => {
    const b = installerBox({ npm: true, bun: WANT });
    const pkg = join(b.checkout, "package.json");
    writeFileSync(pkg, readFileSync(pkg, "utf8").replace(`"bun-types": "${WANT}"`, `"bun-types": "^${WANT}"`));
    const r = await install(b);
    expect(r.stderr).toBe(`bun-version: package.json must pin devDependencies.bun-types to one exact version (found "^${WANT}")\n`);
    expect(r.calls).toEqual([]);
    expect(r.code).toBe(1);
  });

  test("the pinned bun on PATH is used as it is, without npm", async () => {
    const b = installerBox({ npm: true, bun: WANT });
    const r = await install(b);
    expect(r.calls.filter((c) => c.startsWith("npm "))).toEqual([]);
    expect(r.calls).toContain(`bun@${WANT} run build`);
    expect(r.stderr).toContain(`installed vx 0.1.0 (built by bun ${WANT}) to ${join(b.dest, "vx")}\n`);
    expect(r.stderr).toContain(`install: ${b.dest} is not on your PATH`);
    expect(r.code).toBe(0);
  });
});

describe("the release's install.sh through sh", () => {
  const TINY = "0.0.2-tiny";
  let server: ReleaseServer;
  let shared: string;
  let script: string;

  beforeAll(async () => {
    shared = mkdtempSync(join(tmpdir(), "vx-inst-rel-"));
    script = installerScript(shared);
    server = await ReleaseServer.start();
    server.serve(TINY, await tinyRelease(TINY));
  });
  afterAll(async () => {
    await server?.stop();
    rmSync(shared, { recursive: true, force: true });
  });

  /** A temp HOME, its ~/.local/bin, a file outside it that nothing may touch, and the env. */
  function relBox() {
    const base = mkdtempSync(join(tmpdir(), "vx-inst-rel-"));
    const home = join(base, "home");
    mkdirSync(home);
    const victim = join(base, "victim");
    writeFileSync(victim, "precious\n", { mode: 0o600 });
    const env: Record<string, string> = { HOME: home, PATH: installerPath(join(base, "bin")), VX_RELEASES_URL: server.base };
    server.latest = TINY;
    return { base, home, victim, env, dest: join(home, ".local", "bin"), [Symbol.dispose]: () => rmSync(base, { recursive: true, force: true }) };
  }
  /** The lines after "downloading …": a refusal is exactly one. */
  const after = (stderr: string) => stderr.split("\n").filter((l) => l && !l.startsWith("vx install: downloading "));
  const untouched = (victim: string) => ({ text: readFileSync(victim, "utf8"), mode: statSync(victim).mode & 0o777 });

  test("an archive whose vx is a symbolic link or a directory is refused in one line, and the link's target is left alone", async () => {
    using b = relBox();
    for (const [version, kind, what] of [
      ["9.0.0-link", { link: b.victim }, "a symbolic link"],
      ["9.0.0-dir", "directory", "a directory"],
    ] as const) {
      server.serve(version, await hostileRelease(b.base, version, kind));
      server.latest = version;
      const r = await runInstaller(script, b.env, b.home);
      expect({ version, code: r.code, lines: after(r.stderr) }).toEqual({
        version,
        code: 1,
        lines: [`vx install: ${ARCHIVE} holds vx as ${what}, not a regular file; refusing it; nothing was installed`],
      });
      expect(untouched(b.victim)).toEqual({ text: "precious\n", mode: 0o600 });
      expect(existsSync(b.dest)).toBe(false);
    }
  });

  test("links planted at the names it stages the binary and the receipt under are never written through", async () => {
    using b = relBox();
    mkdirSync(b.dest, { recursive: true });
    const victim2 = join(b.base, "victim2");
    writeFileSync(victim2, "precious\n", { mode: 0o600 });
    // The installer's shell reports its pid, then waits on a FIFO while the links are planted
    // under every name derived from that pid; exec keeps the pid for the script read from stdin.
    const fifo = join(b.base, "go");
    const pidFile = join(b.base, "pid");
    expect(Bun.spawnSync(["mkfifo", fifo]).exitCode).toBe(0);
    const proc = Bun.spawn(["sh", "-c", 'echo $$ > "$1"; read _ < "$2"; exec sh', "sh", pidFile, fifo], {
      cwd: b.home,
      env: b.env,
      stdin: readFileSync(script),
      stdout: "pipe",
      stderr: "pipe",
    });
    const pid = (await waitFor(() => (existsSync(pidFile) ? /^(\d+)\n$/.exec(readFileSync(pidFile, "utf8"))?.[1] : undefined), 10_000, "the installer's pid")) as string;
    const planted = [`.vx.install.${pid}`, `.vx-install.${pid}`, `.vx.${pid}`];
    symlinkSync(b.victim, join(b.dest, planted[0] as string));
    symlinkSync(victim2, join(b.dest, planted[1] as string));
    symlinkSync(b.victim, join(b.dest, planted[2] as string));
    writeFileSync(fifo, "go\n");
    const [, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
    expect({ code, stderr }).toMatchObject({ code: 0 });
    expect(stderr).toContain(`vx install: installed vx ${TINY} to ${join(b.dest, "vx")}\n`);
    expect(untouched(b.victim)).toEqual({ text: "precious\n", mode: 0o600 });
    expect(untouched(victim2)).toEqual({ text: "precious\n", mode: 0o600 });
    expect(lstatSync(join(b.dest, "vx")).isFile()).toBe(true);
    expect(lstatSync(join(b.dest, RECEIPT_NAME)).isFile()).toBe(true);
    expect((await run([join(b.dest, "vx"), "--version"], { cwd: b.home, env: b.env })).stdout).toBe(`vx ${TINY}\n`);
    // Only the planted links are left beside vx and its receipt: nothing staged was left behind.
    expect(readdirSync(b.dest).sort()).toEqual(["vx", RECEIPT_NAME, ...planted].sort());
  });

  test("checksums.txt: every case of the table vx upgrade is tested against", async () => {
    using b = relBox();
    const hex = sha256File(join(await tinyRelease(TINY), ARCHIVE));
    const line: Record<string, string> = {
      missing: `vx install: checksums.txt lists no checksum for ${ARCHIVE}; nothing was installed`,
      duplicate: `vx install: checksums.txt lists ${ARCHIVE} more than once; nothing was installed`,
      mismatch: `vx install: checksum mismatch for ${ARCHIVE} (expected ${"ab".repeat(32)}, got ${hex}); nothing was installed`,
    };
    const got: Array<{ name: string; code: number; lines: string[] }> = [];
    const want: typeof got = [];
    try {
      for (const c of CHECKSUM_CASES) {
        server.bodies.set("checksums.txt", c.text(ARCHIVE, hex));
        rmSync(b.dest, { recursive: true, force: true });
        const r = await runInstaller(script, b.env, b.home);
        const lines = after(r.stderr).filter((l) => !l.includes("on your PATH") && !l.includes("next: in your project"));
        got.push({ name: c.name, code: r.code, lines });
        const ok = `vx install: installed vx ${TINY} to ${join(b.dest, "vx")}`;
        want.push({ name: c.name, code: c.want === "ok" ? 0 : 1, lines: [c.want === "ok" ? ok : (line[c.want] as string)] });
      }
    } finally {
      server.bodies.clear();
    }
    expect(got).toEqual(want);
  });

  test("an archive whose vx unpacks beyond the size limit is refused in one line; the old vx stays", async () => {
    using b = relBox();
    mkdirSync(b.dest, { recursive: true });
    writeExecutable(join(b.dest, "vx"), "#!/bin/sh\necho mine\n");
    const before = sha256File(join(b.dest, "vx"));
    const version = "9.0.0-big";
    const dir = await hostileRelease(b.base, version, { over: 1 });
    expect(statSync(join(dir, ARCHIVE)).size).toBeLessThan(MAX_BINARY_BYTES / 50);
    server.serve(version, dir);
    server.latest = version;
    const r = await runInstaller(script, b.env, b.home);
    expect({ code: r.code, lines: after(r.stderr) }).toEqual({
      code: 1,
      lines: [`vx install: ${ARCHIVE} holds a vx of ${MAX_BINARY_BYTES + 1} bytes, over the ${MAX_BINARY_BYTES}-byte limit for a vx binary; refusing it; nothing was installed`],
    });
    expect(sha256File(join(b.dest, "vx"))).toBe(before);
    expect(readdirSync(b.dest)).toEqual(["vx"]);
  });
});

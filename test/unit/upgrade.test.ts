// The parts of `vx upgrade` and the release that need no server: install detection, checksum
// lists, the progress line, the block diff, the archive writer and the scaffold step's questions.
import { describe, expect, test } from "bun:test";
import { closeSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { archiveOne, checksumsText, formulaText, sha256, tarOne } from "../../scripts/release-files";
import { main } from "../../src/main";
import { HOMEBREW_TAP, RECEIPT_NAME, RELEASES_URL, assetUrl, hostPlatform, releasesBase } from "../../src/release-info";
import { lineDiff } from "../../src/scaffold/diff";
import { progressMeter } from "../../src/upgrade/download";
import { installKind } from "../../src/upgrade/install-kind";
import { checksumFor } from "../../src/upgrade/checksums";
import { extractVx } from "../../src/upgrade/untar";
import { testDeps } from "../deps";
import { REPO, sandbox } from "../helpers";
import { CHECKSUM_CASES, hostileArchive } from "../release-kit";

function dir(): string {
  return mkdtempSync(join(tmpdir(), "vx-upg-unit-"));
}

describe("installKind", () => {
  test("Homebrew: the executable resolves into Cellar/<formula>/<version>/", () => {
    const d = dir();
    try {
      const keg = join(d, "Cellar", "vx", "0.2.0", "bin");
      mkdirSync(keg, { recursive: true });
      writeFileSync(join(keg, "vx"), "");
      mkdirSync(join(d, "bin"));
      symlinkSync(join(keg, "vx"), join(d, "bin", "vx"));
      expect(installKind([join(d, "bin", "vx")], "source")).toEqual({ kind: "homebrew", executable: join(d, "bin", "vx"), formula: "vx" });
    } finally {
      rmSync(d, { recursive: true, force: true });
    }
  });

  test("the installer's: a release build named vx with its receipt; anything else is refused with why", () => {
    const d = dir();
    try {
      const vx = join(d, "vx");
      writeFileSync(vx, "");
      expect(installKind(["bun", "src/cli.ts"], "release")).toMatchObject({ kind: "other", why: "this vx runs from source (bun src/cli.ts)" });
      expect(installKind([vx], "source")).toMatchObject({ kind: "other", why: `${vx} was built from a checkout, not installed from a release` });
      expect(installKind([vx], "release")).toMatchObject({ kind: "other", why: `${vx} was not installed by the installer script (no ${join(d, RECEIPT_NAME)})` });
      writeFileSync(join(d, RECEIPT_NAME), "not json");
      expect(installKind([vx], "release").kind).toBe("other");
      writeFileSync(join(d, RECEIPT_NAME), '{"installer":"install.sh","version":"0.1.0","os":"linux","arch":"x64"}\n');
      expect(installKind([vx], "release")).toEqual({ kind: "installer", executable: vx, receipt: join(d, RECEIPT_NAME) });
      copyFileSync(vx, join(d, "vexillum"));
      expect(installKind([join(d, "vexillum")], "release").kind).toBe("other");
      expect(installKind([join(d, "gone")], "release")).toMatchObject({ kind: "other", why: `${join(d, "gone")} cannot be found on disk` });
    } finally {
      rmSync(d, { recursive: true, force: true });
    }
  });
});

describe("release layout", () => {
  test("URLs: versioned and latest, under VX_RELEASES_URL when set", () => {
    expect(assetUrl("https://x/releases", "1.2.3", "a.tgz")).toBe("https://x/releases/download/v1.2.3/a.tgz");
    expect(assetUrl("https://x/releases", "latest", "a.tgz")).toBe("https://x/releases/latest/download/a.tgz");
    expect(releasesBase({ VX_RELEASES_URL: "http://127.0.0.1:1/r/" })).toBe("http://127.0.0.1:1/r");
    expect(releasesBase({})).toMatch(/^https:\/\/github\.com\/[^/]+\/[^/]+\/releases$/);
    expect(hostPlatform("linux", "arm64")).toEqual({ os: "linux", arch: "arm64" });
    expect(hostPlatform("win32", "x64")).toBeUndefined();
    expect(hostPlatform("darwin", "ia32")).toBeUndefined();
  });

  test("checksums: written as sha256sum does and read back by the rules the installer shares", () => {
    const a = "a".repeat(64);
    const b = "B".repeat(64);
    const text = checksumsText({ "z.tar.gz": a, "a.txt": b });
    expect(text).toBe(`${b}  a.txt\n${a}  z.tar.gz\n`);
    expect(checksumFor(text, "a.txt")).toEqual({ hex: "b".repeat(64) });
    expect(checksumFor(text, "z.tar.gz")).toEqual({ hex: a });
  });

  test("checksums: every case of the table the installer is tested against", () => {
    const asset = "vx-linux-x64.tar.gz";
    const hex = sha256("the archive");
    const got = CHECKSUM_CASES.map((c) => {
      const r = checksumFor(c.text(asset, hex), asset);
      return { name: c.name, got: "problem" in r ? r.problem : r.hex === hex ? "ok" : "mismatch" };
    });
    expect(got).toEqual(CHECKSUM_CASES.map((c) => ({ name: c.name, got: c.want })));
  });

  test("the archive holds one executable vx that Bun.Archive and tar both read", async () => {
    const data = new TextEncoder().encode("#!/bin/sh\necho hi\n");
    const tar = tarOne("vx", data, 1_700_000_000);
    expect(tar.length % 512).toBe(0);
    const files = await new Bun.Archive(await archiveOne("vx", data, 1_700_000_000)).files();
    expect([...files.keys()]).toEqual(["vx"]);
    expect(await files.get("vx")?.text()).toBe("#!/bin/sh\necho hi\n");
    const d = dir();
    try {
      writeFileSync(join(d, "a.tar"), tar);
      const list = Bun.spawnSync(["tar", "-tvf", join(d, "a.tar")], { stdout: "pipe" }).stdout.toString();
      expect(list).toMatch(/^-rwxr-xr-x .*\b18 .* vx\n$/);
    } finally {
      rmSync(d, { recursive: true, force: true });
    }
  });

  test("the README's install section shows the curl and brew lines for the project's releases", () => {
    const readme = readFileSync(join(REPO, "README.md"), "utf8");
    const install = readme.slice(readme.indexOf("## Install"), readme.indexOf("## Commands"));
    expect(install).toContain(`curl -fsSL ${assetUrl(RELEASES_URL, "latest", "install.sh")} | sh\n`);
    expect(install).toContain(`brew install ${HOMEBREW_TAP}/vx\n`);
  });

  test("the formula leaves out platforms that were not built", () => {
    const rb = formulaText({
      version: "1.0.0",
      base: "https://h/releases",
      description: 'say "hi" #1',
      archives: [{ platform: { os: "darwin", arch: "arm64" }, url: "https://h/a", sha256: "f".repeat(64) }],
    });
    expect(rb).toContain('  on_macos do\n    on_arm do\n      url "https://h/a"\n');
    expect(rb).not.toContain("on_linux");
    expect(rb).not.toContain("on_intel");
    expect(rb).toContain('desc "say \\"hi\\" \\#1"');
  });
});

describe("extractVx: the archive's vx, streamed to a file", () => {
  const TAIL = "nothing was changed";
  async function extract(archive: Uint8Array, limit?: number): Promise<string> {
    const d = dir();
    try {
      writeFileSync(join(d, "a.tar.gz"), archive);
      const fd = openSync(join(d, "out"), "w");
      try {
        await extractVx(join(d, "a.tar.gz"), fd, "a.tar.gz", TAIL, limit);
      } finally {
        closeSync(fd);
      }
      return readFileSync(join(d, "out"), "utf8");
    } finally {
      rmSync(d, { recursive: true, force: true });
    }
  }
  const refusal = (p: Promise<unknown>) =>
    p.then(
      () => "extracted",
      (err: Error) => err.message,
    );
  const data = new TextEncoder().encode("#!/bin/sh\necho vx 9.9.9\n".repeat(40));

  test("the release's archive gives its vx byte for byte, a vx exactly at the limit too", async () => {
    expect(await extract(await archiveOne("vx", data, 1_700_000_000))).toBe(new TextDecoder().decode(data));
    expect(await extract(await archiveOne("vx", data, 1_700_000_000), data.length)).toBe(new TextDecoder().decode(data));
  });

  test("a link, a directory, another name, a second entry, too big, cut short, not gzip: one line each", async () => {
    const d = dir();
    try {
      await hostileArchive(join(d, "link.tgz"), { link: "/etc/passwd" });
      await hostileArchive(join(d, "dir.tgz"), "directory");
      const one = new Uint8Array(tarOne("vx", data, 1_700_000_000));
      const body = one.subarray(0, one.length - 1024);
      const full = await archiveOne("vx", data, 1_700_000_000);
      expect(await refusal(extract(readFileSync(join(d, "link.tgz"))))).toBe(`a.tar.gz holds vx as a symbolic link, not a regular file; refusing it - ${TAIL}`);
      expect(await refusal(extract(readFileSync(join(d, "dir.tgz"))))).toBe(`a.tar.gz holds vx as a directory, not a regular file; refusing it - ${TAIL}`);
      expect(await refusal(extract(await archiveOne("bin/vx", data, 0)))).toBe(`a.tar.gz holds "bin/vx" where the vx binary should be - ${TAIL}`);
      expect(await refusal(extract(Bun.gzipSync(new Uint8Array(Buffer.concat([body, tarOne("vx", data, 0)])))))).toBe(
        `a.tar.gz holds more than the vx binary (a release archive holds vx alone) - ${TAIL}`,
      );
      expect(await refusal(extract(full, data.length - 1))).toBe(`a.tar.gz holds a vx of ${data.length} bytes, over the ${data.length - 1}-byte limit for a vx binary; refusing it - ${TAIL}`);
      expect(await refusal(extract(Bun.gzipSync(one.slice(0, 700))))).toBe(`a.tar.gz is cut short (it ends inside vx) - ${TAIL}`);
      expect(await refusal(extract(new TextEncoder().encode("not an archive")))).toStartWith("a.tar.gz is not a readable archive (");
      expect(await refusal(extract(Bun.gzipSync(new Uint8Array(0))))).toBe(`a.tar.gz holds no vx binary - ${TAIL}`);
      // A write that fails is reported as the write's error, never blamed on the archive.
      writeFileSync(join(d, "ok.tgz"), full);
      writeFileSync(join(d, "readonly"), "");
      const fd = openSync(join(d, "readonly"), "r");
      try {
        const err = await extractVx(join(d, "ok.tgz"), fd, "a.tar.gz", TAIL).then(
          () => undefined,
          (e: NodeJS.ErrnoException) => e,
        );
        expect(err?.code).toBe("EBADF");
      } finally {
        closeSync(fd);
      }
    } finally {
      rmSync(d, { recursive: true, force: true });
    }
  });
});

describe("progress and diff", () => {
  test("progress is redrawn once per percent and its line ended once", () => {
    const out: string[] = [];
    const m = progressMeter({ write: (t) => (out.push(t), true) }, "vx.tgz", 2_000_000);
    for (let got = 0; got <= 2_000_000; got += 1000) m.update(got);
    m.done();
    m.done();
    expect(out).toHaveLength(102);
    expect(out[1]).toBe("\rvx.tgz  0.0 / 2.0 MB  1%\x1b[K");
    expect(out.at(-2)).toBe("\rvx.tgz  2.0 / 2.0 MB  100%\x1b[K");
    expect(out.at(-1)).toBe("\n");
  });

  test("a line diff: their line, then the current one, long same runs shortened", () => {
    const same = Array.from({ length: 10 }, (_, i) => `line ${i}`);
    const mine = [...same.slice(0, 5), "mine", ...same.slice(5)].join("\n");
    const current = [...same.slice(0, 5), "current", ...same.slice(5)].join("\n");
    expect(lineDiff(mine, current, "a", "b")).toBe("--- a\n+++ b\n  ...\n  line 3\n  line 4\n- mine\n+ current\n  line 5\n  line 6\n  ...\n");
    expect(lineDiff("x\n", "x", "a", "b")).toBe("");
  });
});

describe("vx upgrade --scaffold-only on a terminal", () => {
  test("a malformed block: declining the repair leaves it, then declining the plan changes nothing", async () => {
    using s = sandbox();
    expect(await main(["init", "--yes"], testDeps({ cwd: s.project, env: s.env }))).toBe(0);
    const broken = `${readFileSync(join(s.project, "CLAUDE.md"), "utf8")}<!-- END VEXILLUM -->\n`;
    writeFileSync(join(s.project, "CLAUDE.md"), broken);
    const d = testDeps({ cwd: s.project, env: s.env, tty: true, answers: ["n", "n"] });
    expect(await main(["upgrade", "--scaffold-only"], d)).toBe(1);
    const { stderr } = d.text();
    expect(stderr).toStartWith("CLAUDE.md has a malformed vexillum block (unbalanced or duplicate markers). Back it up to .vexillum/CLAUDE.md.backup and repair it? [Y/n] ");
    expect(stderr).toContain("  leave CLAUDE.md has a malformed vexillum block");
    expect(stderr).toEndWith("Continue? [Y/n] vx: nothing was changed.\n");
    expect(readFileSync(join(s.project, "CLAUDE.md"), "utf8")).toBe(broken);
    expect(existsSync(join(s.project, ".vexillum", "CLAUDE.md.backup"))).toBe(false);
    const yes = testDeps({ cwd: s.project, env: s.env, tty: true, answers: ["", ""] });
    expect(await main(["upgrade", "--scaffold-only"], yes)).toBe(0);
    expect(readFileSync(join(s.project, ".vexillum", "CLAUDE.md.backup"), "utf8")).toBe(broken);
  });
});

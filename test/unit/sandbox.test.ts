// Issue 15 item 8: telling a sandbox's pid namespace and read-only places apart, and the refusal.
import { describe, expect, test } from "bun:test";
import { mkdirSync, readdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { canCreateIn, codexSandboxAdvice, foreignPidNamespace, launcherOf, sandboxRefusal, underCodex } from "../../src/sandbox";
import { sandbox } from "../helpers";

/** A /proc stand-in: pid 1's command line and the `self` link. */
function fakeProc(dir: string, pid1: string[], self: number): string {
  const proc = join(dir, "proc");
  mkdirSync(join(proc, "1"), { recursive: true });
  writeFileSync(join(proc, "1", "cmdline"), `${pid1.join("\0")}\0`);
  symlinkSync(String(self), join(proc, "self"));
  return proc;
}

describe("the sandbox's pid namespace", () => {
  test("pid 1 named codex-linux-sandbox or bwrap (by path or not) is a sandbox launcher; others are not", () => {
    expect(launcherOf("codex-linux-sandbox\0--sandbox-policy-cwd\0/p\0")).toBe("codex-linux-sandbox");
    expect(launcherOf("/usr/bin/bwrap\0--unshare-pid\0")).toBe("bwrap");
    for (const other of ["/sbin/init\0", "systemd\0--system\0", "/usr/bin/tini\0--\0sh\0", "", "bwrapper\0"]) expect(launcherOf(other)).toBeUndefined();
  });

  test.skipIf(process.platform !== "linux")("a launcher at pid 1, or /proc/self naming another pid, is a foreign namespace", () => {
    using s = sandbox({ git: false });
    expect(foreignPidNamespace(fakeProc(join(s.home, "a"), ["codex-linux-sandbox", "--x"], 13), 13)).toBe("its own pid namespace, under codex-linux-sandbox");
    expect(foreignPidNamespace(fakeProc(join(s.home, "b"), ["/sbin/init"], 4242), 13)).toBe("its own pid namespace (pid 13 is 4242 outside)");
    expect(foreignPidNamespace(fakeProc(join(s.home, "c"), ["/sbin/init"], 13), 13)).toBeUndefined();
    expect(foreignPidNamespace(join(s.home, "no-proc"), 13)).toBeUndefined();
    // This test process runs on the host: the real /proc says so.
    expect(foreignPidNamespace()).toBeUndefined();
  });
});

describe("canCreateIn", () => {
  test("true for a writable directory, leaving nothing behind; undefined for a missing one", () => {
    using s = sandbox({ git: false });
    expect(canCreateIn(s.home)).toBe(true);
    expect(readdirSync(s.home)).toEqual([]);
    expect(canCreateIn(join(s.home, "missing"))).toBeUndefined();
  });

  test("false where nothing can be created (a file in the way is not a directory)", () => {
    using s = sandbox({ git: false });
    writeFileSync(join(s.home, "file"), "");
    expect(canCreateIn(join(s.home, "file"))).toBe(false);
  });
});

describe("the refusal", () => {
  test("under Codex it names Codex's sandbox and both settings that work, in its config file", () => {
    const env = { CODEX_THREAD_ID: "t", CODEX_HOME: "/h/.codex" };
    expect(underCodex(env)).toBe(true);
    expect(sandboxRefusal("dispatch", "/p/.git is read-only here", env, { inNamespace: true, writable: ["/p/.git", "/h/.vexillum"] })).toBe(
      'dispatch cannot work inside Codex\'s sandbox (/p/.git is read-only here) - set sandbox_mode = "danger-full-access" in /h/.codex/config.toml (or start codex with --sandbox danger-full-access), or keep the sandbox with writable_roots = ["/p/.git", "/h/.vexillum"] and network_access = true under [sandbox_workspace_write] there and \'vx sentinel\' started outside Codex',
    );
    expect(codexSandboxAdvice({})).toBe('set sandbox_mode = "danger-full-access" in ~/.codex/config.toml (or start codex with --sandbox danger-full-access)');
    // A path with a quote stays one valid TOML string.
    expect(codexSandboxAdvice({}, { writable: ['/a "b"/.git'] })).toContain('writable_roots = ["/a \\"b\\"/.git"]');
    expect(underCodex({ CODEX_SANDBOX: "seatbelt" })).toBe(true);
  });

  test("elsewhere it says to run outside the sandbox, or, in no sandbox, only what is read-only", () => {
    expect(underCodex({})).toBe(false);
    expect(sandboxRefusal("dispatch", "x", {}, { inNamespace: true })).toBe("dispatch cannot work inside this sandbox (x) - run it from outside the sandbox");
    expect(sandboxRefusal("dispatch", "/p/.git is read-only here", {}, { inNamespace: false })).toBe("dispatch cannot work here (/p/.git is read-only here) - it must be able to write there");
  });
});

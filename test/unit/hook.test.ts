import { describe, expect, test } from "bun:test";
import { chmodSync, mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SettingsShapeError } from "../../src/errors";
import { HOOK_COMMAND, hookEntry, hookState, isVexillumHandler, mergeStopHook, renderJson } from "../../src/scaffold/hook";

// HOOK-01's `command` value exactly as docs/spec.md prints it (JSON-encoded), copied verbatim.
const SPEC_COMMAND_JSON = String.raw`"sh -c 'for v in \"$(command -v vx 2>/dev/null)\" \"$HOME/.local/bin/vx\" /opt/homebrew/bin/vx /usr/local/bin/vx /home/linuxbrew/.linuxbrew/bin/vx; do [ -f \"$v\" ] && [ -x \"$v\" ] && exec \"$v\" sentinel await; done; echo \"vx: not found, so the sentinel Stop hook cannot wake the commander. Install vx (brew or curl) or put its directory on PATH, then run: vx doctor\" >&2; exit 0'"`;

// HOOK-01's whole entry block, copied verbatim.
const SPEC_ENTRY_BLOCK = String.raw`{
  "type": "command",
  "command": "sh -c 'for v in \"$(command -v vx 2>/dev/null)\" \"$HOME/.local/bin/vx\" /opt/homebrew/bin/vx /usr/local/bin/vx /home/linuxbrew/.linuxbrew/bin/vx; do [ -f \"$v\" ] && [ -x \"$v\" ] && exec \"$v\" sentinel await; done; echo \"vx: not found, so the sentinel Stop hook cannot wake the commander. Install vx (brew or curl) or put its directory on PATH, then run: vx doctor\" >&2; exit 0'",
  "asyncRewake": true,
  "timeout": 87000
}
`;

const entry = () => hookEntry() as unknown as Record<string, unknown>;
const userHook = { type: "command", command: "./scripts/notify-done.sh" };

describe("HOOK_COMMAND and hookEntry", () => {
  test("is byte-identical to the spec literal", () => {
    expect(HOOK_COMMAND).toBe(JSON.parse(SPEC_COMMAND_JSON));
  });

  test("the entry renders exactly as HOOK-01 shows it, keys in order", () => {
    expect(Object.keys(hookEntry())).toEqual(["type", "command", "asyncRewake", "timeout"]);
    expect(renderJson(hookEntry())).toBe(SPEC_ENTRY_BLOCK);
  });

  test("each call returns a fresh object", () => {
    const a = hookEntry();
    (a as { timeout: number }).timeout = 1;
    expect(hookEntry().timeout).toBe(87000);
  });

  test("the wrapper reports a missing vx and exits 0 (HOOK-02)", () => {
    const home = mkdtempSync(join(tmpdir(), "vx-hook-home-"));
    const r = Bun.spawnSync(["/bin/sh", "-c", HOOK_COMMAND], { env: { HOME: home, PATH: "/usr/bin:/bin" }, cwd: home });
    // A vx installed system-wide would be found; there is nothing to check then.
    if (r.stderr.toString() === "") return;
    expect(r.exitCode).toBe(0);
    expect(r.stderr.toString()).toBe("vx: not found, so the sentinel Stop hook cannot wake the commander. Install vx (brew or curl) or put its directory on PATH, then run: vx doctor\n");
  });

  test("the wrapper execs the first vx it finds as `<vx> sentinel await`", () => {
    const home = mkdtempSync(join(tmpdir(), "vx-hook-home-"));
    const bin = join(home, ".local", "bin");
    mkdirSync(bin, { recursive: true });
    writeFileSync(join(bin, "vx"), '#!/bin/sh\necho "args: $*"\nexit 2\n');
    chmodSync(join(bin, "vx"), 0o755);
    const r = Bun.spawnSync(["/bin/sh", "-c", HOOK_COMMAND], { env: { HOME: home, PATH: `${bin}:/usr/bin:/bin` }, cwd: home });
    expect(r.stdout.toString()).toBe("args: sentinel await\n");
    expect(r.exitCode).toBe(2);
  });
});

describe("isVexillumHandler", () => {
  test.each([
    ["the current wrapper", HOOK_COMMAND, true],
    ["bare vx sentinel await", "vx sentinel await", true],
    ["legacy vexillum drain", "vexillum sentinel drain", true],
    ["absolute path", "/Users/me/.local/bin/vx sentinel await", true],
    ["quoted path with a space", '"/opt/my tools/vx" sentinel drain', true],
    ["through a shell", "sh -c 'vexillum sentinel await'", true],
    ["after env assignments", "FOO=1 vx sentinel await", true],
    ["older wrapper with other candidates", 'sh -c \'for v in "$(command -v vx)" /usr/local/bin/vx; do [ -x "$v" ] && exec "$v" sentinel await; done\'', true],
    ["another subcommand", "vx sentinel", false],
    ["vx status", "vx status --json", false],
    ["a different program", "myvx sentinel await", false],
    ["a suffixed name", "vx-dev sentinel await", false],
    ["an awaiting word", "vx sentinel awaiting", false],
    ["a user script", "./scripts/notify-done.sh", false],
    ["not a string", 42, false],
    ["undefined", undefined, false],
  ])("%s", (_name, command, want) => {
    expect(isVexillumHandler(command)).toBe(want);
  });
});

describe("mergeStopHook", () => {
  test("empty object gets hooks.Stop with one group", () => {
    const { next, changed } = mergeStopHook({});
    expect(changed).toBe(true);
    expect(next).toEqual({ hooks: { Stop: [{ hooks: [entry()] }] } });
  });

  test("keeps other keys, events and their order; new keys go last", () => {
    const input = {
      permissions: { allow: ["Bash(ls)"] },
      hooks: { PreToolUse: [{ matcher: "Bash", hooks: [userHook] }], Notification: [] },
      env: { A: "1" },
    };
    const snapshot = structuredClone(input);
    const { next, changed } = mergeStopHook(input);
    expect(changed).toBe(true);
    expect(input).toEqual(snapshot);
    expect(Object.keys(next)).toEqual(["permissions", "hooks", "env"]);
    const hooks = next.hooks as Record<string, unknown>;
    expect(Object.keys(hooks)).toEqual(["PreToolUse", "Notification", "Stop"]);
    expect(hooks.PreToolUse).toEqual(input.hooks.PreToolUse);
    expect(hooks.Stop).toEqual([{ hooks: [entry()] }]);
  });

  test("a user Stop hook plus an old drain entry: replaced in place, user hook untouched", () => {
    const old = { type: "command", command: "vexillum sentinel drain" };
    const input = { hooks: { Stop: [{ hooks: [userHook, old] }, { matcher: "", hooks: [userHook] }] } };
    const { next, changed } = mergeStopHook(input);
    expect(changed).toBe(true);
    expect(next.hooks).toEqual({ Stop: [{ hooks: [userHook, entry()] }, { matcher: "", hooks: [userHook] }] });
  });

  test("seed 000's entry (timeout 3600) is replaced by the day-long one (AWT-05)", () => {
    const input = { hooks: { Stop: [{ hooks: [userHook, { type: "command", command: HOOK_COMMAND, asyncRewake: true, timeout: 3600 }] }] } };
    const { next, changed } = mergeStopHook(input);
    expect(changed).toBe(true);
    expect(next.hooks).toEqual({ Stop: [{ hooks: [userHook, entry()] }] });
    expect(entry().timeout).toBe(87000);
  });

  test("an entry missing asyncRewake is replaced", () => {
    const input = { hooks: { Stop: [{ hooks: [{ type: "command", command: HOOK_COMMAND, timeout: 3600 }] }] } };
    expect(mergeStopHook(input).next.hooks).toEqual({ Stop: [{ hooks: [entry()] }] });
  });

  test("two vexillum entries become one; a group emptied by the removal is dropped", () => {
    const input = {
      hooks: {
        Stop: [
          { hooks: [{ type: "command", command: "vx sentinel await" }] },
          { hooks: [{ type: "command", command: "vexillum sentinel drain" }] },
          { hooks: [userHook, { type: "command", command: "vx sentinel await", async: true }] },
        ],
      },
    };
    expect(mergeStopHook(input).next.hooks).toEqual({ Stop: [{ hooks: [entry()] }, { hooks: [userHook] }] });
  });

  test("a group that was already empty is kept", () => {
    const input = { hooks: { Stop: [{ hooks: [] }] } };
    expect(mergeStopHook(input).next.hooks).toEqual({ Stop: [{ hooks: [] }, { hooks: [entry()] }] });
  });

  test("an exec-form handler counts as vexillum", () => {
    const input = { hooks: { Stop: [{ hooks: [{ type: "command", command: "vx", args: ["sentinel", "await"] }] }] } };
    expect(mergeStopHook(input).next.hooks).toEqual({ Stop: [{ hooks: [entry()] }] });
  });

  test("unrecognised groups and handlers are kept as they are", () => {
    const input = { hooks: { Stop: ["odd", { hooks: "nope" }, { hooks: [7, userHook] }] } };
    const { next } = mergeStopHook(input);
    expect(next.hooks).toEqual({ Stop: ["odd", { hooks: "nope" }, { hooks: [7, userHook] }, { hooks: [entry()] }] });
  });

  const idempotencyInputs: Array<[string, unknown]> = [
    ["empty", {}],
    ["user hook and legacy", { a: 1, hooks: { Stop: [{ hooks: [userHook, { type: "command", command: "vx sentinel await" }] }] } }],
    ["duplicates", { hooks: { Stop: [{ hooks: [entry(), entry()] }] } }],
    ["already current", { hooks: { Stop: [{ hooks: [entry()] }] } }],
  ];
  test.each(idempotencyInputs)("idempotent: %s", (_name, input) => {
    const once = mergeStopHook(input).next;
    const twice = mergeStopHook(once);
    expect(twice.changed).toBe(false);
    expect(twice.next).toEqual(once);
    expect(renderJson(twice.next)).toBe(renderJson(once));
  });

  test("changed is false for a file that is already right", () => {
    const input = { model: "x", hooks: { Stop: [{ hooks: [userHook] }, { hooks: [entry()] }] } };
    expect(mergeStopHook(input).changed).toBe(false);
  });

  test("a reordered entry counts as a change, so the file is rewritten in HOOK-01 order", () => {
    const e = hookEntry();
    const reordered = { timeout: e.timeout, asyncRewake: e.asyncRewake, command: e.command, type: e.type };
    const { next, changed } = mergeStopHook({ hooks: { Stop: [{ hooks: [reordered] }] } });
    expect(changed).toBe(true);
    expect(Object.keys((next.hooks as { Stop: Array<{ hooks: object[] }> }).Stop[0].hooks[0])).toEqual(Object.keys(e));
  });

  test.each([
    ["an array root", [], ""],
    ["a string root", "x", ""],
    ["null root", null, ""],
    ["hooks as an array", { hooks: [] }, "hooks"],
    ["hooks as null", { hooks: null }, "hooks"],
    ["Stop as an object", { hooks: { Stop: {} } }, "hooks.Stop"],
    ["Stop as null", { hooks: { Stop: null } }, "hooks.Stop"],
  ])("refuses %s with SettingsShapeError", (_name, input, path) => {
    let caught: unknown;
    try {
      mergeStopHook(input);
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(SettingsShapeError);
    expect(caught).toBeInstanceOf(Error);
    expect((caught as SettingsShapeError).path).toBe(path);
  });
});

describe("hookState", () => {
  const old = { type: "command", command: "vexillum sentinel drain" };
  test.each([
    ["empty settings", {}, "missing"],
    ["not an object", "x", "missing"],
    ["Stop not an array", { hooks: { Stop: {} } }, "missing"],
    ["only user hooks", { hooks: { Stop: [{ hooks: [userHook] }] } }, "missing"],
    ["current entry", { hooks: { Stop: [{ hooks: [userHook, entry()] }] } }, "registered"],
    ["current entry, keys reordered", { hooks: { Stop: [{ hooks: [{ timeout: 87000, asyncRewake: true, command: HOOK_COMMAND, type: "command" }] }] } }, "registered"],
    ["legacy only", { hooks: { Stop: [{ hooks: [old] }] } }, "outdated"],
    // AWT-05: seed 000's one-hour timeout leaves an idle commander deaf after 55 minutes.
    ["seed 000's entry (timeout 3600)", { hooks: { Stop: [{ hooks: [{ ...entry(), timeout: 3600 }] }] } }, "outdated"],
    ["current plus legacy", { hooks: { Stop: [{ hooks: [entry()] }, { hooks: [old] }] } }, "outdated"],
    ["extra key on the entry", { hooks: { Stop: [{ hooks: [{ ...entry(), statusMessage: "x" }] }] } }, "outdated"],
  ])("%s", (_name, settings, want) => {
    expect(hookState(settings)).toBe(want as ReturnType<typeof hookState>);
  });

  test("the merge result is registered", () => {
    expect(hookState(mergeStopHook({ hooks: { Stop: [{ hooks: [old] }] } }).next)).toBe("registered");
  });
});

describe("renderJson", () => {
  test("2-space indent and a trailing newline", () => {
    expect(renderJson({ a: [1, { b: true }] })).toBe('{\n  "a": [\n    1,\n    {\n      "b": true\n    }\n  ]\n}\n');
  });
});

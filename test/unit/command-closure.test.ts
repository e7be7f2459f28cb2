/**
 * A command loads only its own work: main loads no command before it knows which one runs, and the
 * hooks' commands stay small. `vx report` runs on every soldier hook event; each module it loads costs
 * every one of those starts.
 */
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { COMMAND_NAMES } from "../../src/commands";
import { SRC, staticClosure } from "../closure";

describe("what a command loads before it runs", () => {
  test("main and the registry load no command: each is imported when it is the one run", () => {
    const { files, packages } = staticClosure("main.ts");
    expect(files).toContain("commands/index.ts");
    expect(files.filter((f) => f.startsWith("commands/") && f !== "commands/index.ts")).toEqual([]);
    expect(packages.filter((p) => !p.startsWith("node:"))).toEqual(["citty"]);
    const registry = readFileSync(join(SRC, "commands/index.ts"), "utf8");
    for (const name of COMMAND_NAMES) expect(registry).toContain(`import("./${name}")`);
  });

  test("vx report loads no backend, harness, sentinel, awaiter, forum, demo or other command", () => {
    const { files, packages } = staticClosure("commands/report.ts");
    expect(files).toContain("state/soldier-state.ts");
    const beyond = /^(backends\/(?!names\.ts$)|harnesses\/(?!names\.ts$)|sentinel\/|awaiters\/|forum\/|demo\/|commands\/(?!report\.ts$))/;
    expect(files.filter((f) => beyond.test(f))).toEqual([]);
    expect(packages).not.toContain("marked");
  });

  test("vx sentinel loads a subcommand's work only when that subcommand runs", () => {
    const { files } = staticClosure("commands/sentinel.ts");
    expect(files.filter((f) => /^(sentinel|awaiters|backends)\//.test(f))).toEqual([]);
  });
});

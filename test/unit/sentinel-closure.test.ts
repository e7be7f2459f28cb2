/**
 * The sentinel polls for days, so its entry loads what a pass uses and nothing else (issue 16):
 * the static import closure of `sentinel/entry.ts` (what is loaded before its first pass; a
 * dynamic `import()` loads only when reached) holds no command, no command table, no forum
 * server or page, no demo, and none of the packages only they use.
 */
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { routeOf } from "../../src/entry-route";
import { SRC, staticClosure } from "../closure";
import { COMMAND_NAMES } from "../../src/commands";

const NOT_IN_A_PASS = /^(main\.ts|commands\/|completion\/|upgrade\/|demo\/|forum\/(?!inbox\.ts$))/;
const PACKAGES_NOT_IN_A_PASS = ["citty", "marked"];

describe("the sentinel's entry", () => {
  test("loads no command, command table, forum server or page, demo or upgrade before its first pass", () => {
    const { files, packages } = staticClosure("sentinel/entry.ts");
    expect(files).toContain("sentinel/pass.ts");
    expect(files.filter((f) => NOT_IN_A_PASS.test(f))).toEqual([]);
    expect(packages.filter((p) => PACKAGES_NOT_IN_A_PASS.includes(p))).toEqual([]);
  });

  test("the check sees what the commands load", () => {
    const closures = COMMAND_NAMES.map((name) => staticClosure(`commands/${name}.ts`));
    expect(new Set(closures.flatMap((c) => c.files.filter((f) => NOT_IN_A_PASS.test(f)))).size).toBeGreaterThan(10);
    expect(closures.flatMap((c) => c.packages)).toContain("citty");
    expect(closures.flatMap((c) => c.packages)).toContain("marked");
  });

  test("a bare `vx sentinel` goes through the entry; its subcommands, help and other commands through main", () => {
    expect(routeOf(["sentinel"])).toBe("sentinel");
    for (const argv of [["sentinel", "await"], ["sentinel", "--help"], ["sentinel", "-h"], ["sentinel", "bogus"], ["status"], []]) expect(routeOf(argv)).toBe("main");
    expect(routeOf(["sentinel", "drain"])).toBe("drain");
    const cli = readFileSync(join(SRC, "cli.ts"), "utf8");
    expect(cli).toContain('route === "sentinel"');
    expect(cli).toContain('import("./sentinel/entry")');
  });
});

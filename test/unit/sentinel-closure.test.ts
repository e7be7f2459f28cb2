/**
 * The sentinel polls for days, so its entry loads what a pass uses and nothing else (issue 16):
 * the static import closure of `sentinel/entry.ts` (what is loaded before its first pass; a
 * dynamic `import()` loads only when reached) holds no command, no command table, no forum
 * server or page, no demo, and none of the packages only they use.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { routeOf } from "../../src/entry-route";

const SRC = resolve(import.meta.dir, "../../src");
const ts = new Bun.Transpiler({ loader: "ts" });

/** Source files and packages reached from `entry` through static imports (type-only ones vanish on build). */
function staticClosure(entry: string): { files: string[]; packages: string[] } {
  const files = new Set<string>();
  const packages = new Set<string>();
  const visit = (file: string): void => {
    if (files.has(file)) return;
    files.add(file);
    for (const imp of ts.scanImports(readFileSync(file, "utf8").replace(/^#!.*/, ""))) {
      if (imp.kind === "dynamic-import") continue;
      if (!imp.path.startsWith(".")) {
        packages.add(imp.path);
        continue;
      }
      const base = resolve(dirname(file), imp.path);
      const hit = [base, `${base}.ts`, join(base, "index.ts")].find((p) => p.endsWith(".ts") && existsSync(p));
      if (hit) visit(hit);
    }
  };
  visit(join(SRC, entry));
  return { files: [...files].map((f) => relative(SRC, f)).sort(), packages: [...packages].sort() };
}

const NOT_IN_A_PASS = /^(main\.ts|commands\/|completion\/|upgrade\/|demo\/|forum\/(?!inbox\.ts$))/;
const PACKAGES_NOT_IN_A_PASS = ["citty", "marked"];

describe("the sentinel's entry", () => {
  test("loads no command, command table, forum server or page, demo or upgrade before its first pass", () => {
    const { files, packages } = staticClosure("sentinel/entry.ts");
    expect(files).toContain("sentinel/pass.ts");
    expect(files.filter((f) => NOT_IN_A_PASS.test(f))).toEqual([]);
    expect(packages.filter((p) => PACKAGES_NOT_IN_A_PASS.includes(p))).toEqual([]);
  });

  test("the check sees what main loads", () => {
    const { files, packages } = staticClosure("main.ts");
    expect(files.filter((f) => NOT_IN_A_PASS.test(f)).length).toBeGreaterThan(10);
    expect(packages).toContain("citty");
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

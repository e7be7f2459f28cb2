/** What a module loads before it runs: its static import closure (a dynamic `import()` loads only when reached). */
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";

export const SRC = resolve(import.meta.dir, "../src");
const ts = new Bun.Transpiler({ loader: "ts" });

/** Source files (relative to src/) and packages reached from `entry` through static imports (type-only ones vanish on build). */
export function staticClosure(entry: string): { files: string[]; packages: string[] } {
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

/**
 * No import cycle among src/ files (a hand-written madge): every relative import, type-only ones
 * included, is an edge; a strongly connected group of more than one file, or a file importing
 * itself, fails with the files named.
 */
import { describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";

const SRC = resolve(import.meta.dir, "../../src");

function target(from: string, spec: string): string | undefined {
  if (!spec.startsWith(".")) return undefined;
  const base = resolve(dirname(from), spec);
  for (const p of [base, `${base}.ts`, join(base, "index.ts")]) if (p.endsWith(".ts") && existsSync(p)) return p;
  return undefined;
}

async function importGraph(): Promise<Map<string, string[]>> {
  const ts = new Bun.Transpiler({ loader: "ts" });
  const graph = new Map<string, string[]>();
  for await (const rel of new Bun.Glob("**/*.ts").scan(SRC)) {
    const file = join(SRC, rel);
    const text = await Bun.file(file).text();
    // scanImports drops type-only imports; a type import still ties the files together for a reader.
    const specs = new Set(ts.scanImports(text.replace(/^#!.*/, "")).map((i) => i.path));
    for (const m of text.matchAll(/^\s*(?:import|export)\s+type\b[^;]*?from\s+["']([^"']+)["']/gm)) specs.add(m[1] as string);
    graph.set(
      file,
      [...specs].map((s) => target(file, s)).filter((t): t is string => t !== undefined),
    );
  }
  return graph;
}

/** Tarjan's strongly connected components. */
function cycles(graph: Map<string, string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const on = new Set<string>();
  const out: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    on.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v) as number, low.get(w) as number));
      } else if (on.has(w)) low.set(v, Math.min(low.get(v) as number, index.get(w) as number));
    }
    if (low.get(v) !== index.get(v)) return;
    const group: string[] = [];
    let w: string;
    do {
      w = stack.pop() as string;
      on.delete(w);
      group.push(relative(SRC, w));
    } while (w !== v);
    if (group.length > 1 || (graph.get(v) ?? []).includes(v)) out.push(group.sort());
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return out;
}

/** Cycles still to break (none): an entry that no longer matches a cycle fails the test. */
const PENDING: string[][] = [];

/** Edges between layers that must not exist (issue 16: a lower layer never reaches up into these). */
const FORBIDDEN: [from: RegExp, to: RegExp][] = [
  [/^commanders\//, /^doctor\//],
  [/^commanders\//, /^sentinel\/pass\.ts$/],
  [/^commands\/(?!index\.ts$)/, /^commands\/index\.ts$/],
  // The shared lifecycle rules live in lifecycle/: soldiers/ only starts the sentinel or asks whether it runs.
  [/^soldiers\//, /^sentinel\/(?!ensure\.ts$|singleton\.ts$)/],
  [/^lifecycle\//, /^(sentinel|soldiers|commands)\//],
  // Backends are registries, below the lifecycle layer: what a launch shares with soldiers/ lives
  // down here or in state/, and the lifecycle's rules (the probe's judgement, the first prompt's
  // text) come in as arguments.
  [/^backends\//, /^(soldiers|commands|sentinel|lifecycle)\//],
  // The registries sit below everything that is not a seam or state: a harness's or a terminal's
  // doctor line is a `check.ts` Check, its installed texts live in its own home, and what it needs
  // from the project (the git dir, the camp's branch) comes in as an argument.
  [/^(backends|harnesses)\//, /^(doctor|scaffold|camps|commanders|wakes|awaiters|forum|demo)\//],
  // Commands are the top layer: nothing below them borrows from one.
  [/^(?!commands\/|main\.ts$|cli\.ts$)/, /^commands\//],
];

/**
 * Forbidden edges still to remove, each in a file this change could not edit: an entry that no
 * longer matches an edge fails the test, so it is removed with the edge.
 */
const PENDING_EDGES: string[] = [];

describe("import graph of src/", () => {
  test("has no cycles", async () => {
    const found = cycles(await importGraph()).map((c) => JSON.stringify(c));
    const pending = PENDING.map((c) => JSON.stringify(c));
    expect(found.filter((c) => !pending.includes(c))).toEqual([]);
    expect(pending.filter((c) => !found.includes(c))).toEqual([]);
  });

  test("no edge the layering forbids: commanders/ into doctor/ or the pass, a command into the registry, soldiers/ or lifecycle/ into the sentinel, backends/ into the lifecycle layer, anything below commands/ into one", async () => {
    const bad: string[] = [];
    for (const [file, deps] of await importGraph()) {
      const from = relative(SRC, file);
      for (const d of deps) {
        const to = relative(SRC, d);
        if (FORBIDDEN.some(([f, t]) => f.test(from) && t.test(to))) bad.push(`${from} -> ${to}`);
      }
    }
    expect(bad.filter((e) => !PENDING_EDGES.includes(e))).toEqual([]);
    expect(PENDING_EDGES.filter((e) => !bad.includes(e))).toEqual([]);
  });

  test("the check sees a cycle when there is one", () => {
    const g = new Map([
      ["/a.ts", ["/b.ts"]],
      ["/b.ts", ["/c.ts"]],
      ["/c.ts", ["/a.ts"]],
      ["/d.ts", ["/a.ts"]],
    ]);
    expect(cycles(g).map((c) => c.length)).toEqual([3]);
  });
});

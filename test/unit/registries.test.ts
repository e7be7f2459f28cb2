// HRN-01 (issue 16 item 1): what vx knows about each harness lives in its module under
// src/harnesses/, and about each terminal backend under src/backends/. Outside those two homes no
// source file names a harness or a backend in a string: not as a whole string ("claude", `tmux`),
// which is how a branch on one is written (`=== "tmux"`, `case "pi":`, `?? "herdr"`), and not as a
// list of names (`claude|codex`, `herdr or tmux`), which is how help and error text go stale when a
// harness is added: such text is built from the registries' name lists instead. Names are read from
// the registries, so a new harness is covered by this test the day it is added.
import { describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import ts from "typescript";
import { BACKEND_NAMES } from "../../src/backends/names";
import { BACKEND_TRAITS } from "../../src/backends/traits";
import { promptRefusal } from "../../src/commands/prompt";
import { HARNESSES, HARNESS_NAMES } from "../../src/harnesses";
import type { ProjectPaths } from "../../src/state/paths";
import type { Task } from "../../src/state/schemas";

const SRC = join(import.meta.dir, "../../src");
const NAMES = [...HARNESS_NAMES, ...BACKEND_NAMES];

/** The two homes: every file under them may name what it is about. */
const HOMES = ["harnesses/", "backends/"];

/** Files outside the homes that still name one, and why; each entry is a debt with its reason. */
const ALLOWED: Record<string, string> = {
  "scaffold/skill-text.ts":
    "the vexillum skill is prose for the commander, installed and hashed as written; its lines on harnesses and backends are edited by hand when one is added",
  // Not debts: `vx demo` is built on tmux and its own harness by design (CMD-DEMO-02: git and tmux
  // are all it needs), and its command shares the demo harness's name.
  "commands/demo.ts": "the command is named demo, as its harness is, and tears down its private tmux server",
  "demo/script.ts": "the scripted commander dispatches on the tmux backend with the demo harness and reads its private tmux server",
  "demo/world.ts": "the demo's world is a private tmux server that it starts, checks for and stops itself",
  "demo/reap.ts": "an earlier demo is left behind when its owner no longer runs the command named demo; its private tmux server is stopped first",
};

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return path.endsWith(".ts") ? [path] : [];
  });
}

/** The text of every string and template piece in `file`, with its line. */
function strings(file: string): { text: string; line: number }[] {
  const source = ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.Latest, true);
  const out: { text: string; line: number }[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node) || ts.isTemplateHead(node) || ts.isTemplateMiddle(node) || ts.isTemplateTail(node)) {
      out.push({ text: node.text, line: source.getLineAndCharacterOfPosition(node.getStart()).line + 1 });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return out;
}

const alternatives = NAMES.map((n) => n.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join("|");
/** Two names in a row, as a list: `a|b`, `a, b`, `a or b`. */
const LIST_RE = new RegExp(`\\b(?:${alternatives})\\b\\s*(?:\\||,|\\bor\\b)\\s*\\b(?:${alternatives})\\b`, "i");

/** Where `file` names a harness or backend by the rule above. */
function namings(file: string): string[] {
  return strings(file)
    .filter(({ text }) => (NAMES as readonly string[]).includes(text.trim()) || LIST_RE.test(text))
    .map(({ text, line }) => `${line}: ${JSON.stringify(text)}`);
}

describe("registries (HRN-01)", () => {
  test("no source file outside src/harnesses/ and src/backends/ names a harness or backend in a string", () => {
    const found: string[] = [];
    for (const file of sourceFiles(SRC)) {
      const rel = relative(SRC, file);
      if (HOMES.some((h) => rel.startsWith(h)) || ALLOWED[rel]) continue;
      for (const hit of namings(file)) found.push(`src/${rel}:${hit}`);
    }
    expect(found).toEqual([]);
  });

  test("every allow-listed file still needs its entry", () => {
    for (const rel of Object.keys(ALLOWED)) expect(namings(join(SRC, rel)).length).toBeGreaterThan(0);
  });

  test("the rule catches a branch, a default and a help list", () => {
    const dir = mkdtempSync(join(tmpdir(), "vx-registries-"));
    const probe = (code: string) => {
      const file = join(dir, "probe.ts");
      writeFileSync(file, code);
      return namings(file).length;
    };
    try {
      expect(probe(`if (t.backend === "tmux") f();`)).toBe(1);
      expect(probe("const h = x ?? `claude`;")).toBe(1);
      expect(probe(`const usage = "--harness claude|codex|pi";`)).toBe(1);
      expect(probe(`const e = \`expected \${a} or \${b}\`;`)).toBe(0);
      expect(probe(`const s = "the soldier's pane is gone";`)).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("each harness module is registered under its own name, each backend's traits too", () => {
    for (const name of HARNESS_NAMES) expect(HARNESSES[name].name).toBe(name);
    for (const name of BACKEND_NAMES) expect(BACKEND_TRAITS[name].name).toBe(name);
  });

  test("vx prompt's refusal of an interrupted task names the task's own backend's pane (CMD-PROMPT-01)", () => {
    const paths = {} as ProjectPaths;
    const task = (backend: Task["backend"]) => ({ id: "t-1", status: "interrupted", backend }) as Task;
    expect(promptRefusal(paths, task("tmux"))).toBe("task t-1 is interrupted, its tmux pane is gone - use 'vx redispatch t-1' instead");
    expect(promptRefusal(paths, task("herdr"))).toBe("task t-1 is interrupted, its herdr pane is gone - use 'vx redispatch t-1' instead");
    expect(promptRefusal(paths, task(undefined))).toContain("its herdr pane is gone");
  });
});

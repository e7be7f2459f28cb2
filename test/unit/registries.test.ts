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
import { promptRefusal } from "../../src/soldiers/prompt";
import { BACKEND_NAMES } from "../../src/backends/names";
import { BACKENDS } from "../../src/backends";
import { HARNESSES, HARNESS_NAMES } from "../../src/harnesses";
import type { ProjectPaths } from "../../src/state/paths";
import type { Task } from "../../src/state/schemas";

const SRC = join(import.meta.dir, "../../src");
const NAMES = [...HARNESS_NAMES, ...BACKEND_NAMES];

/** The two homes: every file under them may name what it is about. */
const HOMES = ["harnesses/", "backends/"];

/** Files outside the homes that still name one, and why; each entry is a debt with its reason. */
const ALLOWED: Record<string, string> = {
  "scaffold/skill-text.ts": "the vexillum skill is prose for the commander, installed and hashed as written; its lines on harnesses and backends are edited by hand when one is added",
  // Not debts: `vx demo` is built on tmux and its own harness by design (CMD-DEMO-02: git and tmux
  // are all it needs), and its command shares the demo harness's name.
  "commands/demo.ts": "the command is named demo, as its harness is, and tears down its private tmux server",
  "commands/index.ts": "the registry lists every command by name, and one is named demo, as its harness is",
  "demo/script.ts": "the scripted commander dispatches on the tmux backend with the demo harness and reads its private tmux server",
  "demo/world.ts": "the demo's world is a private tmux server that it starts, checks for and stops itself",
  "demo/reap.ts": "an earlier demo is left behind when its owner no longer runs the command named demo; its private tmux server is stopped first",
};

/**
 * Files outside the homes that still reach a backend by its own names (a task or registry field, an
 * environment variable, an import of one backend's module), and why. Each is a debt a new backend
 * would have to edit; everything else goes through the registry (`backends/index.ts`). A harness
 * module may say how its commander shows in a plain tmux pane (`tmuxCommander`): that is the
 * harness's knowledge, which the tmux backend's commander side reads.
 */
const ALLOWED_FIELDS: Record<string, string> = {
  "state/schemas.ts": "the on-disk task, awaiter and commander fields of the first two backends, kept so every older file still loads; a new backend keeps its own in `backend_state`",
  "time.ts": "the one duration table (section 17) names each backend's call timeout next to every other duration",
  "fast-drain.ts": "the Stop hook's fast path answers before any backend loads, so it reads the two pane variables AWT-01's check needs directly",
  "awaiters/await.ts": "an await records the herdr pane it runs in, which the herdr commander's registration looks up (CMDR-02)",
  "awaiters/registry.ts": "an await's record carries the herdr pane it runs in, which the herdr backend's registration reads (CMDR-02)",
  "demo/world.ts": "the demo's world is a private tmux server that it starts, checks for and stops itself",
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

const cap = (n: string) => n[0].toUpperCase() + n.slice(1);
/** A backend's name as a word of an identifier: `herdr_pane_id`, `tmuxClient`, `readHerdrCommander`, `TMUX_PANE`. */
const BACKEND_WORD = new RegExp(
  `(?:^|_)(?:${BACKEND_NAMES.join("|")})(?:_|[A-Z]|$)|[a-z](?:${BACKEND_NAMES.map(cap).join("|")})(?:[A-Z]|$)|(?:^|_)(?:${BACKEND_NAMES.map((n) => n.toUpperCase()).join("|")})(?:_|$)`,
);

/**
 * Where `file` reaches a backend by its own names: a property (`task.herdr_pane_id`,
 * `tmuxClient:`), an environment variable (`env.TMUX_PANE`, `"HERDR_PANE_ID"`) or an import path
 * (`../backends/tmux/client`).
 */
function backendReaches(file: string): string[] {
  const source = ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.Latest, true);
  const out: string[] = [];
  const at = (node: ts.Node, what: string) => out.push(`${source.getLineAndCharacterOfPosition(node.getStart()).line + 1}: ${what}`);
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) {
      const spec = node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier) ? node.moduleSpecifier.text : "";
      if (spec.split("/").some((part) => (BACKEND_NAMES as readonly string[]).includes(part))) at(node, `import ${spec}`);
      return;
    }
    if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      const [arg] = node.arguments;
      if (arg && ts.isStringLiteral(arg) && arg.text.split("/").some((part) => (BACKEND_NAMES as readonly string[]).includes(part))) at(node, `import ${arg.text}`);
    }
    const name = ts.isPropertyAccessExpression(node)
      ? node.name
      : ts.isPropertyAssignment(node) || ts.isPropertySignature(node) || ts.isPropertyDeclaration(node) || ts.isMethodDeclaration(node)
        ? node.name
        : ts.isShorthandPropertyAssignment(node)
          ? node.name
          : ts.isBindingElement(node)
            ? (node.propertyName ?? node.name)
            : undefined;
    if (name && (ts.isIdentifier(name) || ts.isStringLiteral(name)) && BACKEND_WORD.test(name.text)) at(node, `property ${name.text}`);
    if (ts.isStringLiteral(node) && /^[A-Z][A-Z0-9_]*$/.test(node.text) && BACKEND_WORD.test(node.text)) at(node, `variable ${node.text}`);
    ts.forEachChild(node, visit);
  };
  visit(source);
  return out;
}

/** How many hits `rule` finds in `code`, written to a scratch file. */
function hitsIn(rule: (file: string) => string[], code: string): number {
  const dir = mkdtempSync(join(tmpdir(), "vx-registries-"));
  try {
    const file = join(dir, "probe.ts");
    writeFileSync(file, code);
    return rule(file).length;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe("registries (HRN-01)", () => {
  test("no source file outside src/backends/ reaches a backend by a field, a variable or an import of its own (issue 26)", () => {
    const found: string[] = [];
    for (const file of sourceFiles(SRC)) {
      const rel = relative(SRC, file);
      if (rel.startsWith("backends/") || rel.startsWith("harnesses/") || ALLOWED_FIELDS[rel]) continue;
      for (const hit of backendReaches(file)) found.push(`src/${rel}:${hit}`);
    }
    expect(found).toEqual([]);
  });

  test("every file allowed to reach a backend still does", () => {
    for (const rel of Object.keys(ALLOWED_FIELDS)) expect({ rel, reaches: backendReaches(join(SRC, rel)).length > 0 }).toEqual({ rel, reaches: true });
  });

  test("the backend rule catches a task field, an environment variable and an import, and passes the registry's words", () => {
    const probe = (code: string) => hitsIn(backendReaches, code);
    expect(probe("const p = task.herdr_pane_id;")).toBe(1);
    expect(probe("const t = { tmux_target: undefined };")).toBe(1);
    expect(probe("const { herdr_tab_id: tab } = task;")).toBe(1);
    expect(probe("const pane = env.TMUX_PANE;")).toBe(1);
    expect(probe(`const pane = env["HERDR_PANE_ID"];`)).toBe(1);
    expect(probe(`import { createTmuxClient } from "../backends/tmux/client";`)).toBe(1);
    expect(probe("const c = ctx.tmuxClient;")).toBe(1);
    expect(probe(`import { backendFor } from "../backends"; const n = backendFor(task).soldierName(task);`)).toBe(0);
    expect(probe("const herd = task.herding; const t = x.tmuxed;")).toBe(0);
  });

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
    const probe = (code: string) => hitsIn(namings, code);
    expect(probe(`if (t.backend === "tmux") f();`)).toBe(1);
    expect(probe("const h = x ?? `claude`;")).toBe(1);
    expect(probe(`const usage = "--harness claude|codex|pi";`)).toBe(1);
    expect(probe(`const e = \`expected \${a} or \${b}\`;`)).toBe(0);
    expect(probe(`const s = "the soldier's pane is gone";`)).toBe(0);
  });

  test("each harness module is registered under its own name, each backend's traits too", () => {
    for (const name of HARNESS_NAMES) expect(HARNESSES[name].name).toBe(name);
    for (const name of BACKEND_NAMES) expect(BACKENDS[name].name).toBe(name);
  });

  test("vx prompt's refusal of an interrupted task names the task's own backend's pane (CMD-PROMPT-01)", () => {
    const paths = {} as ProjectPaths;
    const task = (backend: Task["backend"]) => ({ id: "t-1", status: "interrupted", backend }) as Task;
    expect(promptRefusal(paths, task("tmux"))).toBe("task t-1 is interrupted, its tmux pane is gone - use 'vx redispatch t-1' instead");
    expect(promptRefusal(paths, task("herdr"))).toBe("task t-1 is interrupted, its herdr pane is gone - use 'vx redispatch t-1' instead");
    expect(promptRefusal(paths, task(undefined))).toContain("its herdr pane is gone");
  });
});

// Issue 26: adding a terminal backend is one folder, its name and one registry line. A scratch
// copy of the tree gets a throwaway scripted backend (test/fixtures/third-backend) that way, and
// the type checker, the registry tests and a probe of the pass, doctor and the launch report
// accept it without any other file of src/ touched.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const ROOT = join(import.meta.dir, "../..");
const FIXTURE = join(ROOT, "test/fixtures/third-backend");
let copy = "";
/**
 * For the children: each runs JavaScript for seconds at most, in which JSC's top JIT tier (FTL)
 * spends more CPU compiling than it wins back.
 */
const CHILD_ENV = { ...process.env, NO_COLOR: "1", BUN_JSC_useFTLJIT: "0" };

/** Replaces `from` by `to` in the copy's `file`, once, failing when it is not there. */
function edit(file: string, from: string, to: string): void {
  const path = join(copy, file);
  const text = readFileSync(path, "utf8");
  expect(text).toContain(from);
  writeFileSync(path, text.replace(from, to));
}

function run(argv: string[]): { code: number; out: string } {
  const p = Bun.spawnSync(argv, { cwd: copy, env: CHILD_ENV, stdout: "pipe", stderr: "pipe" });
  return { code: p.exitCode, out: `${p.stdout.toString()}${p.stderr.toString()}` };
}

/** The project's own type check (`bun run typecheck`) of `tsconfig` in the copy: its exit code and its diagnostics, unstyled. */
function typecheck(tsconfig: string): { code: number; out: string } {
  return run([process.execPath, "run", "--silent", "typecheck", "--pretty", "false", "-p", tsconfig]);
}

beforeAll(() => {
  copy = mkdtempSync(join(tmpdir(), "vx-third-backend-"));
  for (const dir of ["src", "test"]) cpSync(join(ROOT, dir), join(copy, dir), { recursive: true });
  for (const file of ["package.json", "bunfig.toml"]) cpSync(join(ROOT, file), join(copy, file));
  symlinkSync(join(ROOT, "node_modules"), join(copy, "node_modules"));
  const tsconfig = JSON.parse(readFileSync(join(ROOT, "tsconfig.json"), "utf8"));
  writeFileSync(join(copy, "tsconfig.json"), JSON.stringify({ ...tsconfig, include: ["src", "test/unit/scripted-probe.test.ts"] }));
  // The backend: one folder.
  mkdirSync(join(copy, "src/backends/scripted"));
  cpSync(join(FIXTURE, "index.ts.txt"), join(copy, "src/backends/scripted/index.ts"));
  // Its name, and one registry line (with its import).
  edit("src/backends/names.ts", `export const BACKEND_NAMES = ["herdr", "tmux"] as const;`, `export const BACKEND_NAMES = ["herdr", "tmux", "scripted"] as const;`);
  edit("src/backends/index.ts", `import { tmux } from "./tmux";`, `import { tmux } from "./tmux";\nimport { scripted } from "./scripted";`);
  edit("src/backends/index.ts", "= { herdr, tmux };", "= { herdr, tmux, scripted };");
  cpSync(join(FIXTURE, "probe.test.ts.txt"), join(copy, "test/unit/scripted-probe.test.ts"));
});

afterAll(() => {
  if (copy) rmSync(copy, { recursive: true, force: true });
});

test("the type checker accepts a third backend added as one folder, its name and one registry line", () => {
  const tsc = typecheck("tsconfig.json");
  expect(tsc.out).toBe("");
  expect(tsc.code).toBe(0);
}, 180_000);

test("the registry tests and a probe of the pass, doctor and the launch report run it", () => {
  const t = run([process.execPath, "test", "--timeout", "60000", "test/unit/registries.test.ts", "test/unit/import-cycles.test.ts", "test/unit/scripted-probe.test.ts"]);
  expect(t.out).toContain(" 0 fail");
  expect(t.out).toContain("scripted soldier is surveyed");
  expect(t.code).toBe(0);
}, 180_000);

test("a backend missing a part does not compile", () => {
  edit("src/backends/scripted/index.ts", "  findCommander: async () => undefined,\n", "");
  // The registry and what it imports are where a missing part shows: the whole tree again would only repeat the first check.
  const tsconfig = JSON.parse(readFileSync(join(copy, "tsconfig.json"), "utf8"));
  writeFileSync(join(copy, "tsconfig.registry.json"), JSON.stringify({ ...tsconfig, include: ["src/backends/index.ts"] }));
  const tsc = typecheck("tsconfig.registry.json");
  // The registry line itself refuses it, whatever the backend's own file declares.
  expect(tsc.out).toMatch(/^src\/backends\/index\.ts\(\d+,\d+\): error TS\d+: Property 'findCommander' is missing/m);
  expect(tsc.code).not.toBe(0);
}, 180_000);

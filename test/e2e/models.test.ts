// Model profiles end to end (CMD-MODELS-01): `vx models`, `--profile` on dispatch and redispatch,
// the default profile, and doctor's models.json line, with the compiled vx and the fake herdr.
import { LISTED_HARNESS_NAMES } from "../../src/harnesses/names";
import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { agentArgv } from "../fakes/herdr-control";
import { type Field, field, seedTask, taskIdOf } from "./soldier-field";

const GLOBAL = {
  profiles: {
    fast: { harness: "claude", model: "haiku", effort: "low", when: "typos and small fixes" },
    deep: { harness: "claude", model: "opus", effort: "max" },
  },
  default: "fast",
};
const PROJECT = { profiles: { deep: { harness: "codex", model: "gpt-5", effort: "high", when: "hard refactors" } } };

function globalFile(f: Field): string {
  return join(f.home, ".vexillum", "models.json");
}

function projectFile(f: Field): string {
  return join(f.project, ".vexillum", "models.json");
}

function writeModels(f: Field, global: unknown, project: unknown): void {
  mkdirSync(join(f.home, ".vexillum"), { recursive: true });
  if (global !== undefined) writeFileSync(globalFile(f), typeof global === "string" ? global : JSON.stringify(global));
  if (project !== undefined) writeFileSync(projectFile(f), typeof project === "string" ? project : JSON.stringify(project));
}

function nothingCreated(f: Field): void {
  expect(existsSync(f.paths.tasksDir) ? readdirSync(f.paths.tasksDir).filter((n) => n.endsWith(".json")) : []).toEqual([]);
  expect(existsSync(f.paths.poolFile)).toBe(false);
}

describe("vx models", () => {
  test("lists the merged profiles with their when lines, the default marked, and the sources", async () => {
    await using f = await field();
    writeModels(f, GLOBAL, PROJECT);
    const r = await f.run(["models"]);
    expect(r).toEqual({
      code: 0,
      stderr: "",
      stdout: ["fast  (claude, haiku, low)  (default)", "    typos and small fixes", "deep  (codex, gpt-5, high)", "    hard refactors", `Source: ${globalFile(f)}, ${projectFile(f)}`, ""].join("\n"),
    });
  });

  test("--json prints the merged document", async () => {
    await using f = await field();
    writeModels(f, GLOBAL, PROJECT);
    const r = await f.run(["models", "--json"]);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ profiles: { fast: GLOBAL.profiles.fast, deep: PROJECT.profiles.deep }, default: "fast" });
  });

  test("what init wrote is a valid, empty profiles document", async () => {
    await using f = await field();
    const r = await f.run(["models", "--json"]);
    expect(r).toEqual({ code: 0, stderr: "", stdout: `${JSON.stringify({ profiles: {} }, null, 2)}\n` });
    expect((await f.run(["models"])).stdout).toBe(`no profiles yet; add them to .vexillum/models.json\nSource: ${projectFile(f)}\n`);
  });

  test("a malformed file is an error naming it, never an empty list", async () => {
    await using f = await field();
    writeModels(f, "{not json", PROJECT);
    let r = await f.run(["models"]);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe("");
    expect(r.stderr).toStartWith(`vx: ${globalFile(f)}: invalid JSON`);
    writeModels(f, GLOBAL, { profiles: { deep: { harness: "aider" } } });
    r = await f.run(["models", "--json"]);
    expect(r.stderr).toBe(`vx: ${projectFile(f)}: invalid profiles.deep.harness: expected one of ${LISTED_HARNESS_NAMES.join(", ")} - vx leaves it as it is; repair it or move it aside\n`);
  });

  test("a profile named __proto__, constructor or prototype is refused naming the file, never dropped", async () => {
    await using f = await field();
    for (const name of ["__proto__", "constructor", "prototype"]) {
      writeModels(f, undefined, `{"profiles": {"fast": {"model": "haiku"}, "${name}": {"model": "opus"}}}`);
      const tail = `invalid profiles: the profile name "${name}" is one JavaScript reserves, so vx cannot read it; rename that profile - vx leaves it as it is; repair it or move it aside\n`;
      expect(await f.run(["models"])).toEqual({ code: 1, stdout: "", stderr: `vx: ${projectFile(f)}: ${tail}` });
      const r = await f.run(["dispatch", "fix it", "--profile", name]);
      expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 1, stderr: `vx: ${projectFile(f)}: ${tail}` });
      nothingCreated(f);
    }
  });

  test("a newline in a name or field never splits a line", async () => {
    await using f = await field();
    writeModels(f, undefined, { profiles: { "two\nlines": { harness: "claude", model: "m\nx" } }, default: "two\nlines" });
    const r = await f.run(["models"]);
    expect(r).toEqual({ code: 0, stderr: "", stdout: `two\\x0alines  (claude, m\\x0ax, -)  (default)\nSource: ${projectFile(f)}\n` });
  });
});

describe("vx dispatch --profile", () => {
  test("takes harness, model and effort from the profile, and records them on the task", async () => {
    await using f = await field();
    writeModels(f, GLOBAL, PROJECT);
    const r = await f.run(["dispatch", "port it", "--profile", "deep"]);
    expect(r.code).toBe(0);
    const t = f.task(taskIdOf(r.stdout));
    expect(t).toMatchObject({ harness: "codex", model: "gpt-5", effort: "high" });
    expect(agentArgv(f.fh, t.herdr_agent_name as string)).toEqual(["codex", "--dangerously-bypass-approvals-and-sandbox", "--model", "gpt-5", "-c", "model_reasoning_effort=high"]);
    expect(r.stderr).not.toContain("profile");
  });

  test("an explicit flag wins field by field", async () => {
    await using f = await field();
    writeModels(f, GLOBAL, PROJECT);
    const r = await f.run(["dispatch", "port it", "--profile", "deep", "--model", "o3"]);
    expect(r.code).toBe(0);
    expect(f.task(taskIdOf(r.stdout))).toMatchObject({ harness: "codex", model: "o3", effort: "high" });
  });

  test("a profile's values meet dispatch's own checks", async () => {
    await using f = await field();
    writeModels(f, undefined, { profiles: { odd: { harness: "claude", model: "gpt-5" } } });
    const r = await f.run(["dispatch", "port it", "--profile", "odd"]);
    expect(r.code).toBe(64);
    expect(r.stderr).toStartWith('vx: unknown model "gpt-5" (expected one of haiku, sonnet, opus, fable)\nUsage: vx dispatch');
    nothingCreated(f);
  });

  test("an unknown profile: the line, exit 64, nothing written", async () => {
    await using f = await field();
    writeModels(f, GLOBAL, PROJECT);
    const r = await f.run(["dispatch", "port it", "--profile", "huge"]);
    expect(r.code).toBe(64);
    expect(r.stdout).toBe("");
    expect(r.stderr).toStartWith('vx: unknown profile "huge" (known: fast, deep)\nUsage: vx dispatch');
    nothingCreated(f);
  });

  test("a malformed models.json stops a dispatch, naming the file", async () => {
    await using f = await field();
    writeModels(f, { profiles: { a: { modle: "opus" } } }, undefined);
    const r = await f.run(["dispatch", "port it"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(`vx: ${globalFile(f)}: invalid profiles.a.modle: unknown field (known: harness, model, effort, when) - vx leaves it as it is; repair it or move it aside\n`);
    nothingCreated(f);
  });

  test("the default applies when no profile, harness, model or effort is given, and says so", async () => {
    await using f = await field();
    writeModels(f, GLOBAL, PROJECT);
    let r = await f.run(["dispatch", "fix the typo"]);
    expect(r.code).toBe(0);
    expect(f.task(taskIdOf(r.stdout))).toMatchObject({ harness: "claude", model: "haiku", effort: "low" });
    expect(r.stderr).toContain('vx: using the default profile "fast" (claude, haiku, low)\n');
    // Any of the three flags means no default: the model is not carried over to another harness.
    r = await f.run(["dispatch", "port it", "--harness", "codex"]);
    expect(r.code).toBe(0);
    const t = f.task(taskIdOf(r.stdout));
    expect(t.harness).toBe("codex");
    expect(t.model).toBeUndefined();
    expect(t.effort).toBeUndefined();
    expect(r.stderr).not.toContain("default profile");
  });
});

describe("vx redispatch --profile", () => {
  test("relaunches with the profile's harness, model and effort", async () => {
    await using f = await field();
    writeModels(f, GLOBAL, PROJECT);
    const seeded = await seedTask(f, { status: "interrupted", harness: "claude", model: "opus" });
    const r = await f.run(["redispatch", seeded.task.id, "--profile", "deep"]);
    expect({ code: r.code, stderr: r.stderr }).toMatchObject({ code: 0 });
    const t = f.task(seeded.task.id);
    expect(t).toMatchObject({ harness: "codex", model: "gpt-5", effort: "high", redispatches: 1 });
    expect(agentArgv(f.fh, t.herdr_agent_name as string)?.slice(0, 2)).toEqual(["codex", "--dangerously-bypass-approvals-and-sandbox"]);
  });

  test("an unknown profile, or one failing the checks, changes nothing; without --profile the default does not apply", async () => {
    await using f = await field();
    writeModels(f, GLOBAL, PROJECT);
    const seeded = await seedTask(f, { status: "interrupted", harness: "claude", model: "opus" });
    let r = await f.run(["redispatch", seeded.task.id, "--profile", "huge"]);
    expect(r.code).toBe(64);
    expect(r.stderr).toStartWith('vx: unknown profile "huge" (known: fast, deep)\nUsage: vx redispatch');
    expect(f.task(seeded.task.id)).toEqual(seeded.task);
    writeModels(f, GLOBAL, { profiles: { odd: { harness: "claude", model: "gpt-5" } } });
    r = await f.run(["redispatch", seeded.task.id, "--profile", "odd"]);
    expect(r.code).toBe(64);
    expect(r.stderr).toStartWith('vx: profile "odd": unknown model "gpt-5" (expected one of haiku, sonnet, opus, fable)\nUsage: vx redispatch');
    expect(f.task(seeded.task.id)).toEqual(seeded.task);
    r = await f.run(["redispatch", seeded.task.id]);
    expect(r.code).toBe(0);
    expect(f.task(seeded.task.id)).toMatchObject({ harness: "claude", model: "opus" });
  });
});

describe("vx doctor: models.json", () => {
  const line = (stdout: string) => stdout.split("\n").find((l) => l.includes(" models.json - "));

  test("both files valid; then each kind of fault, naming the file", async () => {
    await using f = await field();
    writeModels(f, GLOBAL, PROJECT);
    expect(line((await f.run(["doctor"])).stdout)).toBe("[ok] models.json - valid");

    writeModels(f, "[1]", undefined);
    expect(line((await f.run(["doctor"])).stdout)).toBe(`[warn] models.json - invalid: ${globalFile(f)}: expected a JSON object`);

    writeModels(f, GLOBAL, { profiles: {}, default: "huge" });
    expect(line((await f.run(["doctor"])).stdout)).toBe(`[warn] models.json - invalid: ${projectFile(f)}: default "huge" is not a profile (known: fast, deep) - name one of them, or remove "default"`);

    writeModels(f, GLOBAL, { profiles: { odd: { model: "gpt-5" } } });
    expect(line((await f.run(["doctor"])).stdout)).toBe(`[warn] models.json - invalid: ${projectFile(f)}: profile "odd": unknown model "gpt-5" (expected one of haiku, sonnet, opus, fable)`);
  });
});

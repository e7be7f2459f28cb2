// Model profiles (CMD-MODELS-01): validation of one file, the merge of two, and which harness,
// model and effort a dispatch ends up with (profile, default, flags field by field).
import { LISTED_HARNESS_NAMES } from "../../src/harnesses/names";
import { afterEach, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { StateError, UsageError } from "../../src/errors";
import { modelsJson, modelsText } from "../../src/commands/models";
import { type ModelsFile, applyProfile, mergeModels, pickProfile, readModelsFile } from "../../src/state/models";
import type { Models } from "../../src/state/schemas";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function fileWith(text: string): string {
  const dir = mkdtempSync(join(tmpdir(), "vx-models-"));
  dirs.push(dir);
  const path = join(dir, "models.json");
  writeFileSync(path, text);
  return path;
}

const file = (path: string, models: Models): ModelsFile => ({ path, models });

describe("reading one models.json", () => {
  test("what init writes is a valid, empty profiles document; an absent file is undefined", () => {
    const path = fileWith(`${JSON.stringify({ profiles: {} }, null, 2)}\n`);
    expect(readModelsFile(path)).toEqual({ path, models: { profiles: {} } });
    expect(readModelsFile(join(path, "..", "absent.json"))).toBeUndefined();
  });

  test("a full profile and a default are read as written", () => {
    const doc = { profiles: { deep: { harness: "codex", model: "gpt-5", effort: "high", when: "hard refactors" } }, default: "deep" };
    const path = fileWith(JSON.stringify(doc));
    expect(readModelsFile(path)?.models).toEqual(doc as Models);
  });

  test.each([
    ["not JSON", "{profiles", "invalid JSON"],
    ["an array", "[]", "expected a JSON object"],
    ["no profiles", "{}", 'invalid profiles: Invalid key: Expected "profiles" but received undefined'],
    ["profiles as an array", '{"profiles":[]}', "invalid profiles: expected an object"],
    ["a profile that is not an object", '{"profiles":{"a":1}}', "invalid profiles.a: expected an object"],
    ["a misspelt field", '{"profiles":{"a":{"modle":"opus"}}}', "invalid profiles.a.modle: unknown field (known: harness, model, effort, when)"],
    ["an unknown harness", '{"profiles":{"a":{"harness":"aider"}}}', `invalid profiles.a.harness: expected one of ${LISTED_HARNESS_NAMES.join(", ")}`],
    ["an empty model", '{"profiles":{"a":{"model":""}}}', "invalid profiles.a.model: must not be empty"],
    ["a numeric effort", '{"profiles":{"a":{"effort":3}}}', "invalid profiles.a.effort: expected a string"],
    ["a default that is not a string", '{"profiles":{},"default":1}', "invalid default: expected a string"],
  ])("%s is an error naming the file, never an empty list", (_, text, detail) => {
    const path = fileWith(text);
    let err: unknown;
    try {
      readModelsFile(path);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(StateError);
    expect((err as StateError).message).toStartWith(`${path}: ${detail}`);
  });
});

describe("merging the global and the project file", () => {
  const global = file("/g/models.json", {
    profiles: { fast: { harness: "claude", model: "haiku", effort: "low" }, deep: { harness: "claude", model: "opus", effort: "max" } },
    default: "fast",
  });
  const project = file("/p/models.json", { profiles: { deep: { harness: "codex", model: "gpt-5" }, scout: { model: "sonnet" } } });

  test("the project wins profile by profile: a whole profile replaces the global one, fields are not mixed", () => {
    const m = mergeModels([global, project]);
    expect(m.profiles).toEqual({
      fast: { harness: "claude", model: "haiku", effort: "low" },
      deep: { harness: "codex", model: "gpt-5" },
      scout: { model: "sonnet" },
    });
    expect(m.default).toBe("fast");
    expect(m.sources).toEqual(["/g/models.json", "/p/models.json"]);
  });

  test("the project's default wins over the global one, and may name a global profile", () => {
    expect(mergeModels([global, file("/p/models.json", { profiles: {}, default: "deep" })]).default).toBe("deep");
  });

  test("no files: no profiles, no sources", () => {
    expect(mergeModels([])).toEqual({ profiles: {}, sources: [] });
  });

  test("a default naming no profile is an error naming the file that set it", () => {
    expect(() => mergeModels([global, file("/p/models.json", { profiles: {}, default: "huge" })])).toThrow(
      '/p/models.json: default "huge" is not a profile (known: fast, deep) - name one of them, or remove "default"',
    );
  });
});

describe("which profile a dispatch takes, and what it ends up with", () => {
  const models: Models = {
    profiles: { fast: { harness: "claude", model: "haiku", effort: "low" }, deep: { harness: "codex", model: "gpt-5", effort: "high" } },
    default: "fast",
  };

  test("a named profile gives its harness, model and effort; a flag wins field by field", () => {
    const picked = pickProfile(models, "deep", { model: "o3" }, true, "dispatch");
    expect(picked).toMatchObject({ name: "deep", fromDefault: false });
    expect(applyProfile(picked?.profile, { model: "o3" })).toEqual({ harness: "codex", model: "o3", effort: "high" });
    expect(applyProfile(picked?.profile, { harness: "pi", effort: "low" })).toEqual({ harness: "pi", model: "gpt-5", effort: "low" });
  });

  test("an unknown profile is a usage error listing the known ones", () => {
    let err: unknown;
    try {
      pickProfile(models, "huge", {}, true, "dispatch");
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(UsageError);
    expect(err).toMatchObject({ message: 'unknown profile "huge" (known: fast, deep)', exit: 64, command: "dispatch" });
    expect(() => pickProfile({ profiles: {} }, "x", {}, true, "redispatch")).toThrow('unknown profile "x" (known: none)');
  });

  test("the default applies only when no profile and no harness, model or effort flag is given", () => {
    expect(pickProfile(models, undefined, {}, true, "dispatch")).toMatchObject({ name: "fast", fromDefault: true });
    for (const flags of [{ harness: "codex" as const }, { model: "opus" }, { effort: "max" }]) {
      expect(pickProfile(models, undefined, flags, true, "dispatch")).toBeUndefined();
    }
    expect(pickProfile(models, "deep", {}, true, "dispatch")?.name).toBe("deep");
    // A redispatch keeps the task's own choices unless a profile is named.
    expect(pickProfile(models, undefined, {}, false, "redispatch")).toBeUndefined();
    expect(pickProfile({ profiles: models.profiles }, undefined, {}, true, "dispatch")).toBeUndefined();
  });

  test("no profile leaves the flags as they are", () => {
    expect(applyProfile(undefined, { model: "opus" })).toEqual({ harness: undefined, model: "opus", effort: undefined });
  });
});

describe("vx models output", () => {
  const merged = mergeModels([
    file("/g/models.json", { profiles: { fast: { harness: "claude", model: "haiku", effort: "low", when: "typos and small fixes" } }, default: "fast" }),
    file("/p/models.json", { profiles: { deep: { model: "opus", when: "hard refactors\nand migrations" } } }),
  ]);

  test("each profile with its when beneath, the default marked, then the sources", () => {
    expect(modelsText(merged)).toBe(
      ["fast  (claude, haiku, low)  (default)", "    typos and small fixes", "deep  (-, opus, -)", "    hard refactors", "    and migrations", "Source: /g/models.json, /p/models.json", ""].join("\n"),
    );
  });

  test("no profiles says so; control characters never reach the terminal", () => {
    expect(modelsText({ profiles: {}, sources: [] })).toBe("no profiles yet; add them to .vexillum/models.json\nSource: none (no models.json found)\n");
    expect(modelsText({ profiles: { "a\u001b[2J": { when: "x\u0007" } }, sources: ["/p"] })).toBe("a\\x1b[2J  (-, -, -)\n    x\\x07\nSource: /p\n");
  });

  test("--json is the merged document without its sources", () => {
    expect(JSON.parse(modelsJson(merged))).toEqual({
      profiles: {
        fast: { harness: "claude", model: "haiku", effort: "low", when: "typos and small fixes" },
        deep: { model: "opus", when: "hard refactors\nand migrations" },
      },
      default: "fast",
    });
  });
});

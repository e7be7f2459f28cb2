/** Model profiles (CMD-MODELS-01): global and project files, each validated on its own (a malformed one is an error naming it), project over global. */
import { join } from "node:path";
import type { Deps } from "../deps";
import { StateError, UsageError } from "../errors";
import { printableLine } from "../printable";
import { readTextIfExists } from "./files";
import { parseRecord } from "./record";
import { type Models, ModelsSchema, type Profile, type Task } from "./schemas";

export type ModelsFile = { path: string; models: Models };
/** `sources`: global first. */
export type MergedModels = Models & { sources: string[] };
export type Choice = { harness?: NonNullable<Task["harness"]>; model?: string; effort?: string };

export function globalModelsPath(root: string): string {
  return join(root, "models.json");
}

export function projectModelsPath(top: string): string {
  return join(top, ".vexillum", "models.json");
}

/** Undefined when absent. */
export function readModelsFile(path: string): ModelsFile | undefined {
  // Links are followed: the user's files, maybe in a dotfiles checkout; vx never writes through them after init.
  const text = readTextIfExists(path);
  if (text === undefined) return undefined;
  return { path, models: parseRecord(path, text, ModelsSchema).value };
}

/** Later files win, whole profile by profile (fields are not mixed), and for `default`. */
export function mergeModels(files: ModelsFile[]): MergedModels {
  // fromEntries defines own properties: no name reaches a prototype setter.
  const profiles: Record<string, Profile> = Object.fromEntries(files.flatMap((f) => Object.entries(f.models.profiles)));
  let def: string | undefined;
  let defFrom = "";
  for (const f of files) {
    if (f.models.default !== undefined) [def, defFrom] = [f.models.default, f.path];
  }
  if (def !== undefined && !Object.hasOwn(profiles, def)) {
    throw new StateError(defFrom, `default "${printableLine(def)}" is not a profile (known: ${knownNames(profiles)}) - name one of them, or remove "default"`);
  }
  return { profiles, ...(def === undefined ? {} : { default: def }), sources: files.map((f) => f.path) };
}

/** Throws on the first malformed file. */
export function loadModels(root: string, top: string): MergedModels {
  const files = [globalModelsPath(root), projectModelsPath(top)].map(readModelsFile);
  return mergeModels(files.filter((f): f is ModelsFile => f !== undefined));
}

function knownNames(profiles: Record<string, Profile>): string {
  const names = Object.keys(profiles);
  return names.length === 0 ? "none" : names.map(printableLine).join(", ");
}

/** `-` for a field left to the defaults. */
export function profileTriple(p: Profile): string {
  return `(${[p.harness, p.model, p.effort].map((x) => (x === undefined ? "-" : printableLine(x))).join(", ")})`;
}

/** `--profile`'s, else the default only when no harness, model or effort flag was given (it could pair its model with another harness). */
export function pickProfile(models: Models, name: string | undefined, flags: Choice, useDefault: boolean, command: string): { name: string; profile: Profile; fromDefault: boolean } | undefined {
  if (name !== undefined) {
    const profile = Object.hasOwn(models.profiles, name) ? models.profiles[name] : undefined;
    if (!profile) throw new UsageError(`unknown profile "${printableLine(name)}" (known: ${knownNames(models.profiles)})`, command);
    return { name, profile, fromDefault: false };
  }
  const anyFlag = flags.harness !== undefined || flags.model !== undefined || flags.effort !== undefined;
  if (!useDefault || anyFlag || models.default === undefined) return undefined;
  return { name: models.default, profile: models.profiles[models.default] as Profile, fromDefault: true };
}

/** An explicit flag wins, field by field. */
export function applyProfile(profile: Profile | undefined, flags: Choice): Choice {
  return {
    harness: flags.harness ?? profile?.harness,
    model: flags.model ?? profile?.model,
    effort: flags.effort ?? profile?.effort,
  };
}

/** Loads profiles only when one could apply; says when the default was taken, since the command line did not name it. */
export function profileChoice(deps: Deps, where: { root: string; top: string }, name: unknown, flags: Choice, opts: { useDefault: boolean; command: string }): Choice {
  const wanted = name === undefined ? undefined : String(name);
  const anyFlag = flags.harness !== undefined || flags.model !== undefined || flags.effort !== undefined;
  if (wanted === undefined && (!opts.useDefault || anyFlag)) return flags;
  const picked = pickProfile(loadModels(where.root, where.top), wanted, flags, opts.useDefault, opts.command);
  if (picked?.fromDefault) {
    deps.stderr.write(`vx: using the default profile "${printableLine(picked.name)}" ${profileTriple(picked.profile)}\n`);
  }
  return applyProfile(picked?.profile, flags);
}

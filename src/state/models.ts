/**
 * Model profiles (CMD-MODELS-01): the global `~/.vexillum/models.json` and the project's
 * `.vexillum/models.json`, each validated on its own (a malformed file is an error naming it,
 * never an empty list), merged project over global profile by profile, and the harness, model
 * and effort a dispatch takes from them.
 */
import { join } from "node:path";
import type { Deps } from "../deps";
import { StateError, UsageError } from "../errors";
import { printableLine } from "../printable";
import { readTextIfExists } from "./files";
import { parseRecord } from "./record";
import { type Models, ModelsSchema, type Profile, type Task } from "./schemas";

export type ModelsFile = { path: string; models: Models };
/** The merged document, and the files it came from (global first). */
export type MergedModels = Models & { sources: string[] };
export type Choice = { harness?: NonNullable<Task["harness"]>; model?: string; effort?: string };

export function globalModelsPath(root: string): string {
  return join(root, "models.json");
}

export function projectModelsPath(top: string): string {
  return join(top, ".vexillum", "models.json");
}

/** One file; undefined when absent, a StateError naming it when it is not a profiles document. */
export function readModelsFile(path: string): ModelsFile | undefined {
  // Links are followed (both files are the user's to edit, and may live in a dotfiles checkout);
  // vx never writes through them after init, and anything but a regular file is refused.
  const text = readTextIfExists(path);
  if (text === undefined) return undefined;
  return { path, models: parseRecord(path, text, ModelsSchema).value };
}

/**
 * Later files win, profile by profile (a whole profile replaces the earlier one of its name,
 * fields are not mixed), and for `default`. A default naming no profile of the result is an error
 * naming the file that set it.
 */
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

/** Both files merged; throws on the first malformed one. */
export function loadModels(root: string, top: string): MergedModels {
  const files = [globalModelsPath(root), projectModelsPath(top)].map(readModelsFile);
  return mergeModels(files.filter((f): f is ModelsFile => f !== undefined));
}

function knownNames(profiles: Record<string, Profile>): string {
  const names = Object.keys(profiles);
  return names.length === 0 ? "none" : names.map(printableLine).join(", ");
}

/** `(<harness>, <model>, <effort>)`, `-` for a field the profile leaves to the defaults. */
export function profileTriple(p: Profile): string {
  return `(${[p.harness, p.model, p.effort].map((x) => (x === undefined ? "-" : printableLine(x))).join(", ")})`;
}

/**
 * Which profile a dispatch runs with: the one named by `--profile`, else the default when no
 * harness, model or effort flag was given (a default mixed with a flag could pair its model with
 * another harness), else none. Undefined `name` with `useDefault` false never picks one.
 */
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

/** An explicit flag wins, field by field; the profile fills the rest. */
export function applyProfile(profile: Profile | undefined, flags: Choice): Choice {
  return {
    harness: flags.harness ?? profile?.harness,
    model: flags.model ?? profile?.model,
    effort: flags.effort ?? profile?.effort,
  };
}

/**
 * The harness, model and effort a dispatch or redispatch runs with, given its flags. Loads the
 * profiles only when one could apply (a malformed file then stops the dispatch); says on stderr when the default was taken, since nothing on
 * the command line named it.
 */
export function profileChoice(deps: Deps, where: { root: string; top: string }, name: unknown, flags: Choice, opts: { useDefault: boolean; command: string }): Choice {
  const wanted = name === undefined ? undefined : String(name);
  const anyFlag = flags.harness !== undefined || flags.model !== undefined || flags.effort !== undefined;
  // Nothing to look up: no profile named, and no default could apply.
  if (wanted === undefined && (!opts.useDefault || anyFlag)) return flags;
  const picked = pickProfile(loadModels(where.root, where.top), wanted, flags, opts.useDefault, opts.command);
  if (picked?.fromDefault) {
    deps.stderr.write(`vx: using the default profile "${printableLine(picked.name)}" ${profileTriple(picked.profile)}\n`);
  }
  return applyProfile(picked?.profile, flags);
}

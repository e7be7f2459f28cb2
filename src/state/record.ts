/** One JSON state file: a bad file is an error naming it, never a default; unknown top-level fields survive a save, so an older vx never erases a newer one's data (STA-06). */
import * as v from "valibot";
import { StateError } from "../errors";
import { SCHEMA_VERSION } from "./schemas";
import { parseJsonText, readStateText, writeStateFile } from "./files";

type ObjectSchema = v.GenericSchema & { entries: Record<string, unknown> };

export type Loaded<T> = { value: T; raw: Record<string, unknown> };

function isPlainObject(x: unknown): x is Record<string, unknown> {
  return typeof x === "object" && x !== null && !Array.isArray(x);
}

function issueText(issue: v.BaseIssue<unknown>): string {
  const where = issue.path?.map((p) => String(p.key)).join(".") ?? "";
  return where ? `invalid ${where}: ${issue.message}` : issue.message;
}

/** First, so a newer file is refused rather than misread. */
function checkSchemaVersion(path: string, raw: Record<string, unknown>): void {
  const sv = raw.schema_version;
  if (sv === undefined) return;
  if (typeof sv !== "number" || !Number.isInteger(sv)) {
    throw new StateError(path, `invalid schema_version ${JSON.stringify(sv)} (expected 1)`);
  }
  if (sv > SCHEMA_VERSION) throw new StateError(path, `unsupported schema version ${sv} (expected ${SCHEMA_VERSION})`);
}

/** STA-07 for `versioned` files. */
export function parseRecord<S extends ObjectSchema>(path: string, text: string, schema: S, versioned = false): Loaded<v.InferOutput<S>> {
  const raw = parseJsonText(path, text);
  if (!isPlainObject(raw)) throw new StateError(path, "expected a JSON object");
  if (versioned) checkSchemaVersion(path, raw);
  const result = v.safeParse(schema, raw);
  if (!result.success) {
    throw new StateError(path, `${issueText(result.issues[0])} - vx leaves it as it is; repair it or move it aside`);
  }
  return { value: result.output as v.InferOutput<S>, raw };
}

/** Undefined when it does not exist. */
export function loadRecord<S extends ObjectSchema>(path: string, schema: S, versioned = false): Loaded<v.InferOutput<S>> | undefined {
  const text = readStateText(path);
  if (text === undefined) return undefined;
  return parseRecord(path, text, schema, versioned);
}

/** Known keys in `keys` order, then `onDisk`'s unknown keys sorted, values untouched. */
export function mergeForSave(known: Record<string, unknown>, keys: readonly string[], onDisk: Record<string, unknown> | undefined): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const k of keys) if (known[k] !== undefined) out[k] = known[k];
  if (onDisk) {
    const keySet = new Set(keys);
    for (const k of Object.keys(onDisk).sort()) if (!keySet.has(k)) out[k] = onDisk[k];
  }
  return out;
}

export function renderState(value: unknown): string {
  return `${JSON.stringify(value, null, 2)}\n`;
}

/** Keeps unknown fields of what is on disk now; callers hold the lock for a read-modify-write. A non-object file is never overwritten. */
export function saveRecord(root: string, path: string, known: Record<string, unknown>, keys: readonly string[]): void {
  const text = readStateText(path);
  let onDisk: Record<string, unknown> | undefined;
  if (text !== undefined) {
    const raw = parseJsonText(path, text);
    if (!isPlainObject(raw)) throw new StateError(path, "expected a JSON object");
    onDisk = raw;
  }
  writeStateFile(root, path, renderState(mergeForSave(known, keys, onDisk)));
}

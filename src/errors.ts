// The errors vx raises on purpose: `main` turns each into its exit code (ENV-08) and one stderr line.

import { EXIT } from "./exit-codes";

export { EXIT };

/** A refusal or failure of a well-formed request: `vx: <message>`, exit 1 unless told otherwise. */
export class VxError extends Error {
  readonly exit: number;
  constructor(message: string, exit: number = EXIT.error) {
    super(message);
    this.name = "VxError";
    this.exit = exit;
  }
}

/** Malformed invocation: message, then the command's usage, exit 64. */
export class UsageError extends VxError {
  /** The command whose usage to print; undefined for the general usage. */
  readonly command?: string;
  constructor(message: string, command?: string) {
    super(message, EXIT.usage);
    this.name = "UsageError";
    this.command = command;
  }
}

/** A state file that cannot be trusted: the message names the file; the file is left as it is. */
export class StateError extends VxError {
  readonly path: string;
  constructor(path: string, detail: string) {
    super(`${path}: ${detail}`);
    this.name = "StateError";
    this.path = path;
  }
}

/** A symlink where vx keeps state: never followed, or a planted link would carry vx's writes elsewhere. */
export class StateLinkError extends StateError {
  constructor(path: string) {
    super(path, "is a symbolic link, which vx refuses inside its state dir - remove it (or put what it points to in its place)");
    this.name = "StateLinkError";
  }
}

/** A herdr or tmux call that failed; `code` is herdr's error code when it gave one. */
export class MuxError extends VxError {
  readonly code: string;
  readonly argv: string[];
  constructor(code: string, message: string, argv: string[]) {
    super(message);
    this.name = "MuxError";
    this.code = code;
    this.argv = argv;
  }
}

/** Ends the command with `exit` and no further output (the command already printed what it had). */
export class SilentExit extends VxError {
  constructor(exit: number) {
    super("", exit);
    this.name = "SilentExit";
  }
}

export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

const STORAGE_REFUSALS: Record<string, { why: string; todo: string }> = {
  ENOSPC: { why: "no space is left on its device", todo: "free some space there" },
  EDQUOT: { why: "the disk quota is used up", todo: "free some space within the quota" },
  EROFS: { why: "its file system is read-only", todo: "make it writable (or run vx with a HOME on a writable disk)" },
};

/** The one line for a full or read-only disk, naming the error's `path` (state writes set it to the file meant). */
export function storageRefusal(err: unknown): string | undefined {
  const { code, path } = (err ?? {}) as NodeJS.ErrnoException;
  const known = code === undefined ? undefined : STORAGE_REFUSALS[code];
  if (!known) return undefined;
  return `cannot write ${path ?? "to disk"}: ${known.why} (${code}) - ${known.todo}, then run the command again`;
}

/** A harness settings file vx cannot merge into without guessing: never repaired silently (the user may be mid-edit), left untouched (HOOK-06). */
export class SettingsShapeError extends Error {
  constructor(
    message: string,
    /** JSON path of the offending value, e.g. `hooks.Stop`. */
    readonly path: string,
  ) {
    super(message);
    this.name = "SettingsShapeError";
  }
}

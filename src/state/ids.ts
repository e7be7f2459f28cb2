/** Task ids and other names that become path components: validated before any path is built. */
import { UsageError } from "../errors";

const TASK_ID = /^[0-9a-f]{16}$/;
// As short as git takes for a commit.
const TASK_REF = /^[0-9a-f]{4,16}$/;

export function isTaskId(x: string): boolean {
  return TASK_ID.test(x);
}

/** TSK-02: a malformed id is a usage error (64) before any file is touched. */
export function assertTaskId(x: string, command?: string): string {
  if (!isTaskId(x)) throw new UsageError(`invalid task id "${x}": expected 16 lowercase hex characters`, command);
  return x;
}

/** TSK-02: an id or a prefix, checked before any file is touched. */
export function assertTaskRef(x: string, command?: string): string {
  if (!TASK_REF.test(x)) {
    throw new UsageError(`invalid task id "${x}": expected 16 lowercase hex characters, or a unique prefix of at least 4`, command);
  }
  return x;
}

export function newTaskId(): string {
  return Array.from(crypto.getRandomValues(new Uint8Array(8)), (b) => b.toString(16).padStart(2, "0")).join("");
}

/** For forum sessions and message uids. */
export function isSafeBaseName(x: string): boolean {
  return x.length > 0 && x !== "." && x !== ".." && !x.includes("/") && !x.includes("\0");
}

/** MCH-01: a machine's name, a path component (`relay/<name>.json`) and a word on a remote command line. */
export const MACHINE_NAME = /^[a-z0-9][a-z0-9-]{0,31}$/;

export function isMachineName(x: string): boolean {
  return MACHINE_NAME.test(x) && x !== "local";
}

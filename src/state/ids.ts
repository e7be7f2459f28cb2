/** Task ids and other names that become path components: validated before any path is built. */
import { UsageError } from "../errors";

const TASK_ID = /^[0-9a-f]{16}$/;
// A prefix as short as git takes for a commit: the lists show 8 characters.
const TASK_REF = /^[0-9a-f]{4,16}$/;

export function isTaskId(x: string): boolean {
  return TASK_ID.test(x);
}

/** TSK-02: a malformed id is a usage error (64) before any file is touched. */
export function assertTaskId(x: string, command?: string): string {
  if (!isTaskId(x)) throw new UsageError(`invalid task id "${x}": expected 16 lowercase hex characters`, command);
  return x;
}

/**
 * TSK-02: an id or a prefix of one as a user gives it (4 to 16 lowercase hex), checked before any
 * file is touched; `resolveTaskRef` (state/tasks.ts) turns it into the one id it names.
 */
export function assertTaskRef(x: string, command?: string): string {
  if (!TASK_REF.test(x)) {
    throw new UsageError(`invalid task id "${x}": expected 16 lowercase hex characters, or a unique prefix of at least 4`, command);
  }
  return x;
}

/** 8 random bytes as 16 lowercase hex. */
export function newTaskId(): string {
  return Array.from(crypto.getRandomValues(new Uint8Array(8)), (b) => b.toString(16).padStart(2, "0")).join("");
}

/** A safe base name for forum sessions and message uids (no `/`, not `.` or `..`, not empty). */
export function isSafeBaseName(x: string): boolean {
  return x.length > 0 && x !== "." && x !== ".." && !x.includes("/") && !x.includes("\0");
}

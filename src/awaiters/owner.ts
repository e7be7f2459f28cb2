/**
 * Who an await belongs to (AWT-06). Harnesses run hooks through `/bin/sh -c <command>`; where that
 * shell is dash it does not exec the hook's own `sh -c '… exec vx sentinel await'`, so the await's
 * parent is a per-hook shell that dies with the hook, not the session. The owner is the nearest
 * ancestor that is not such a wrapper, and the chain of wrappers is kept so that the death of any
 * link (the wrapper, or the owner behind it) reads as owner loss.
 */
import type { Exec } from "../exec";
import { HARNESSES } from "../harnesses";
import { inspectProcess } from "../procs";

type OwnerChain = {
  owner: number;
  /** The owner's command line (argv joined by spaces) when the await started. */
  ownerCommand: string;
  /** Wrapper shells from the await's parent upwards, each the child of the next (last: of the owner). */
  wrappers: number[];
};

/** Deeper than any harness nests its hook shells; a longer chain is not a hook. */
const MAX_WRAPPERS = 4;

const SHELLS = new Set(["sh", "dash", "bash", "zsh", "ksh", "mksh", "ash", "busybox"]);

/** A shell process whose command line runs the vx hook command (`… sentinel await …`). */
export function isHookShell(command: string): boolean {
  const first = command.trim().split(/\s+/, 1)[0] ?? "";
  const name = first.slice(first.lastIndexOf("/") + 1).replace(/^-/, "");
  return SHELLS.has(name) && /\bsentinel await\b/.test(command);
}

/**
 * Walks up from the await's parent to its owner; undefined when the chain ends at init or
 * vanishes. The command lines are read whole whatever the caller's terminal (see inspectProcess):
 * a wrapper whose line was cut before `sentinel await` would pass for the owner, and each turn's
 * await would then have an owner of its own that no later await supersedes.
 */
export async function findOwner(parent: number, exec: Exec, platform?: string): Promise<OwnerChain | undefined> {
  const wrappers: number[] = [];
  let pid = parent;
  while (pid > 1) {
    const info = await inspectProcess(pid, exec, platform);
    if (!info) return undefined;
    if (!isHookShell(info.command) || wrappers.length === MAX_WRAPPERS) {
      return { owner: pid, ownerCommand: info.command, wrappers };
    }
    wrappers.push(pid);
    pid = info.ppid;
  }
  return undefined;
}

/** The pid an await's parent must be: its first wrapper, or the owner itself. */
export function expectedParent(chain: Pick<OwnerChain, "owner" | "wrappers">): number {
  return chain.wrappers[0] ?? chain.owner;
}

/**
 * Whether the chain still stands: the await's parent is the first link, each wrapper is still the
 * child of the next, and the owner is alive. Without wrappers this costs no process inspection.
 */
export async function chainHolds(parentNow: number, chain: OwnerChain, exec: Exec, platform?: string): Promise<boolean> {
  if (parentNow !== expectedParent(chain)) return false;
  const links = [...chain.wrappers, chain.owner];
  for (let i = 0; i < chain.wrappers.length; i++) {
    const info = await inspectProcess(links[i] as number, exec, platform);
    if (!info || info.ppid !== links[i + 1]) return false;
  }
  return chain.wrappers.length === 0 || (await inspectProcess(chain.owner, exec, platform)) !== undefined;
}

/**
 * AWT-01: the session behind an await cannot be woken (a harness's print or SDK mode runs async
 * hooks synchronously, so an await would hang it, and it has no idle session to wake).
 */
export function isNonInteractiveSession(env: Record<string, string | undefined>, ownerCommand?: string): boolean {
  return Object.values(HARNESSES).some((h) => h.commander.nonInteractive(env, ownerCommand));
}

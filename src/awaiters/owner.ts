/**
 * Who an await belongs to (AWT-06): the nearest ancestor that is not a hook wrapper shell (dash does
 * not exec the hook's own `sh -c`). The death of any link in the chain reads as owner loss.
 */
import type { Exec } from "../exec";
import { HARNESSES } from "../harnesses";
import { inspectProcess } from "../procs";

type OwnerChain = {
  owner: number;
  ownerCommand: string;
  /** From the await's parent upwards, each the child of the next. */
  wrappers: number[];
};

/** A longer chain is not a hook. */
const MAX_WRAPPERS = 4;

const SHELLS = new Set(["sh", "dash", "bash", "zsh", "ksh", "mksh", "ash", "busybox"]);

export function isHookShell(command: string): boolean {
  const first = command.trim().split(/\s+/, 1)[0] ?? "";
  const name = first.slice(first.lastIndexOf("/") + 1).replace(/^-/, "");
  return SHELLS.has(name) && /\bsentinel await\b/.test(command);
}

/** Undefined when the chain ends at init or vanishes. Command lines are read whole: a cut one would pass a wrapper off as the owner. */
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

export function expectedParent(chain: Pick<OwnerChain, "owner" | "wrappers">): number {
  return chain.wrappers[0] ?? chain.owner;
}

/** Without wrappers this costs no process inspection. */
export async function chainHolds(parentNow: number, chain: OwnerChain, exec: Exec, platform?: string): Promise<boolean> {
  if (parentNow !== expectedParent(chain)) return false;
  const links = [...chain.wrappers, chain.owner];
  for (let i = 0; i < chain.wrappers.length; i++) {
    const info = await inspectProcess(links[i] as number, exec, platform);
    if (!info || info.ppid !== links[i + 1]) return false;
  }
  return chain.wrappers.length === 0 || (await inspectProcess(chain.owner, exec, platform)) !== undefined;
}

/** AWT-01: print or SDK mode runs async hooks synchronously, so an await would hang it. */
export function isNonInteractiveSession(env: Record<string, string | undefined>, ownerCommand?: string): boolean {
  return Object.values(HARNESSES).some((h) => h.commander.nonInteractive(env, ownerCommand));
}

/**
 * What every deliverer does with a project's two queues: claim, drop what is no longer news, hand back
 * the rest. Claims are deleted only after delivery and put back on failure: at most once, never lost (WAK-07).
 */
import { isSafeBaseName } from "../state/ids";
import { parseRecord } from "../state/record";
import { type ForumWake, ForumWakeSchema, type SoldierWake, SoldierWakeSchema } from "../state/schemas";
import { StateLinkError } from "../errors";
import { readStateText } from "../state/files";
import { isLanded } from "../camps/git";
import type { Exec } from "../exec";
import { isLiveVx } from "../procs";
import type { Clock } from "../time";
import { type CurrencyLookups, forumWakeCurrent, leasedIn, loadTaskIn, soldierWakeCurrent } from "./currency";
import { claimWake, deleteClaim, listWakeNames, putBackClaim, recoverDeadClaims } from "./queue";

export type Claim = { path: string; kind: "soldier" | "forum" };

export type QueueDirs = { stateDir: string; wakesDir: string; forumWakesDir: string; forumInboxDir: string };

export type DeliverDeps = {
  clock: Pick<Clock, "now">;
  /** WAK-08. */
  isLiveVx: (pid: number) => boolean | Promise<boolean>;
  currency: CurrencyLookups;
  pid?: number;
};

/** The currency lookups over real files and git: the deliverers' and the board's (FOR-09 counts only true wakes). */
export function currencyLookups(root: string, exec: Exec): CurrencyLookups {
  return {
    root,
    loadTask: loadTaskIn,
    leased: leasedIn,
    isLanded: (t) => (t.camp_path && t.camp_base ? isLanded(t.camp_path, t.camp_base, exec) : undefined),
  };
}

/** The one builder of `DeliverDeps` over real files and git, for drain, await and the sentinel's injection. */
export function deliverDeps(deps: { clock: Pick<Clock, "now">; exec: Exec; pid?: number }, root: string): DeliverDeps {
  return {
    clock: deps.clock,
    pid: deps.pid,
    isLiveVx: (pid) => isLiveVx(pid, deps.exec),
    currency: currencyLookups(root, deps.exec),
  };
}

type Collected = { claims: Claim[]; soldier: SoldierWake[]; forum: ForumWake[] };

/** Claims and filters both queues; corrupt or stale wakes are deleted. On a throw every claim is put back, so none is stranded. */
export async function collectWakes(queue: QueueDirs, deps: DeliverDeps): Promise<Collected> {
  const pid = deps.pid ?? process.pid;
  const out: Collected = { claims: [], soldier: [], forum: [] };
  const taken: Claim[] = [];
  try {
    for (const dir of [queue.wakesDir, queue.forumWakesDir]) {
      await recoverDeadClaims(dir, { now: deps.clock.now(), isLiveVx: deps.isLiveVx, pid });
    }
    const ctx = { ...deps.currency, stateDir: queue.stateDir };
    for (const claim of claimAll(queue.wakesDir, "soldier", pid, deps.clock, taken)) {
      const wake = readClaim(claim, (path, text) => parseRecord(path, text, SoldierWakeSchema).value);
      if (wake && (await soldierWakeCurrent(wake, ctx))) {
        out.claims.push(claim);
        out.soldier.push(wake);
      } else {
        deleteClaim(claim.path);
      }
    }
    for (const claim of claimAll(queue.forumWakesDir, "forum", pid, deps.clock, taken)) {
      const wake = readClaim(claim, parseForumWake);
      const count = wake ? forumWakeCurrent(wake, queue.forumInboxDir) : 0;
      if (wake && count > 0) {
        out.claims.push(claim);
        out.forum.push({ ...wake, count });
      } else {
        deleteClaim(claim.path);
      }
    }
  } catch (err) {
    putBackAll(taken, () => {});
    throw err;
  }
  return out;
}

// Generator so each claim is recorded in `taken` the moment it exists, before it is read.
function* claimAll(dir: string, kind: Claim["kind"], pid: number, clock: Pick<Clock, "now">, taken: Claim[]) {
  for (const name of listWakeNames(dir)) {
    const path = claimWake(dir, name, pid, clock.now());
    if (!path) continue;
    const claim: Claim = { path, kind };
    taken.push(claim);
    yield claim;
  }
}

function parseForumWake(path: string, text: string): ForumWake {
  const wake = parseRecord(path, text, ForumWakeSchema).value;
  // The session names an inbox directory: anything else is as corrupt as bad JSON.
  if (!isSafeBaseName(wake.session)) throw new Error(`${path}: unsafe session name`);
  return wake;
}

/** Undefined when corrupt or vanished; a symbolic link is corrupt, never read through. */
function readClaim<T>(claim: Claim, parse: (path: string, text: string) => T): T | undefined {
  let text: string | undefined;
  try {
    text = readStateText(claim.path);
  } catch (err) {
    if (err instanceof StateLinkError) return undefined;
    throw err; // an I/O error: the claim goes back
  }
  if (text === undefined) return undefined;
  try {
    return parse(claim.path, text);
  } catch {
    return undefined;
  }
}

/** After a successful print. Tries all, then throws the first failure. */
export function finishClaims(claims: readonly Claim[]): void {
  let first: unknown;
  for (const c of claims) {
    try {
      deleteClaim(c.path);
    } catch (err) {
      first ??= err;
    }
  }
  if (first !== undefined) throw first;
}

/** WAK-07 on every failure path; best effort via `onError`, since a signal handler must still finish its cleanup. */
export function putBackAll(claims: readonly Claim[], onError?: (err: unknown, claim: Claim) => void): void {
  let first: unknown;
  for (const c of claims) {
    try {
      putBackClaim(c.path);
    } catch (err) {
      if (onError) onError(err, c);
      else first ??= err;
    }
  }
  if (first !== undefined) throw first;
}

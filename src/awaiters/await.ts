/**
 * `vx sentinel await` (AWT-03..11): exits 2 with a wake's reason (or AWT-12's re-arm text) on stderr, else 0,
 * never anything else: a stray exit code from an async hook can wake the commander in a loop.
 */
import { fstatSync, statSync } from "node:fs";
import { deliverDeps } from "../wakes/deliver";
import type { Deps } from "../deps";
import { EXIT } from "../exit-codes";
import { ensureSentinel } from "../sentinel/ensure";
import { appendStateText, ensureRoot, ensureStateDir } from "../state/files";
import { errorText } from "../sentinel/log";
import { rootPaths } from "../state/paths";
import type { Awaiter } from "../state/schemas";
import { isoTime } from "../time";
import { onStopSignals } from "../signals";
import { type Claim, collectWakes, finishClaims, putBackAll } from "../wakes/deliver";
import { reasonText } from "../wakes/reason";
import { deliveryProject } from "./queue-context";
import { chainHolds, findOwner, isNonInteractiveSession } from "./owner";
import { REARM_TEXT, listenDeadline, nextStep, rearmsByTurn } from "./rearm";
import { reapAwaiters, registerAwaiter, unregisterAwaiter } from "./registry";
import { type Waker, createWaker } from "./waker";

export async function awaitWake(deps: Deps): Promise<number> {
  const ac = new AbortController();
  const removeHandlers = onStopSignals(() => ac.abort());
  let held: Claim[] = [];
  let root: string | undefined;
  let registeredIn: string | undefined;
  let waker: Waker | undefined;
  try {
    // Read once: an owner that dies during start-up must show as a changed parent, not become it.
    const parent = deps.ppid();
    if (parent <= 1 || isNonInteractiveSession(deps.env) || stderrGoesNowhere()) return EXIT.ok;
    const project = await deliveryProject(deps);
    if (!project) return EXIT.ok;
    const chain = await findOwner(parent, deps.exec);
    if (!chain || isNonInteractiveSession(deps.env, chain.ownerCommand)) return EXIT.ok;
    const ownerHolds = () => chainHolds(deps.ppid(), chain, deps.exec);
    root = project.root;
    const awaitersDir = rootPaths(root).awaitersDir;
    const rec: Awaiter = {
      pid: deps.pid,
      owner_pid: chain.owner,
      wrapper_pids: chain.wrappers,
      project_path: project.paths.project,
      project_key: project.paths.key,
      herdr_pane_id: deps.env.HERDR_PANE_ID || undefined,
      started_at: isoTime(deps.clock.now()),
    };
    registerAwaiter(awaitersDir, rec);
    registeredIn = awaitersDir;
    await reapAwaiters(root, deps.exec, rec);
    ensureStateDir(root, project.queue.forumWakesDir);
    waker = createWaker([project.queue.wakesDir, project.queue.forumWakesDir], deps.clock);
    // A day in this process's own time: a step of the wall clock neither stretches nor cuts it (TIME-02).
    const deadline = listenDeadline(deps.clock.monotonic(), deps.env);
    const byTurn = rearmsByTurn(chain.ownerCommand, deps.env);
    const delivery = deliverDeps(deps, root);
    while (!ac.signal.aborted) {
      if (!(await ownerHolds())) return EXIT.ok;
      ensureSentinel(deps, root, { quiet: true });
      const collected = await collectWakes(project.queue, delivery);
      held = collected.claims;
      const text = reasonText(collected.soldier, collected.forum);
      if (text) {
        // A wake told to nobody is put back.
        if (ac.signal.aborted || !(await ownerHolds()) || !deps.stderr.write(`${text}\n`)) return EXIT.ok;
        // Delivered: from here on the answer is 2 whatever happens to the cleanup.
        const delivered = held;
        held = [];
        try {
          finishClaims(delivered);
        } catch (err) {
          logAwaitError(root, deps, err);
        }
        return EXIT.wakeDelivered;
      }
      held = [];
      const step = nextStep(deps.clock.monotonic(), deadline, deps.env, byTurn);
      if (step.kind === "end") return EXIT.ok;
      if (step.kind === "rearm") {
        // AWT-12: one turn, whose Stop starts the next await; a wake landing meanwhile waits for it.
        if (ac.signal.aborted || !(await ownerHolds())) return EXIT.ok;
        return deps.stderr.write(`${REARM_TEXT}\n`) ? EXIT.wakeDelivered : EXIT.ok;
      }
      await waker.wait(step.ms, ac.signal);
    }
    return EXIT.ok;
  } catch (err) {
    if (root) logAwaitError(root, deps, err);
    return EXIT.ok;
  } finally {
    putBackAll(held, () => {});
    waker?.close();
    try {
      if (registeredIn) unregisterAwaiter(registeredIn, deps.pid);
    } catch (err) {
      if (root) logAwaitError(root, deps, err);
    }
    removeHandlers();
  }
}

/** A closed stderr (`2>&-`) is reopened on /dev/null, where a "delivered" wake would be lost. */
function stderrGoesNowhere(): boolean {
  try {
    const fd2 = fstatSync(2);
    const devNull = statSync("/dev/null");
    return fd2.isCharacterDevice() && fd2.rdev === devNull.rdev;
  } catch {
    return false;
  }
}

/** AWT-10: internal errors go to sentinel.log, never to stderr (which would read as a wake). */
function logAwaitError(root: string, deps: Deps, err: unknown): void {
  try {
    ensureRoot(root);
    appendStateText(rootPaths(root).sentinelLog, `${isoTime(deps.clock.now())} await: ${errorText(err)}\n`);
  } catch {
    // Nowhere left to report.
  }
}

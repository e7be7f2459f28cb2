/**
 * MCH-08 on the commander's machine, run by its sentinel: one `ssh <machine> vx machine relay <self_id>` stream per machine
 * with tasks in flight, each line applied here (a wake committed before its ack goes back), reconnected with backoff,
 * the link's state in `relay/<machine>.json` for status and doctor.
 */
import { join } from "node:path";
import { drainBounded } from "../bounded-output";
import type { Deps } from "../deps";
import { errorMessage } from "../errors";
import { ensureStateDir, writeStateFile } from "../state/files";
import { renderState } from "../state/record";
import { isoTime, scaled } from "../time";
import { type LinkState, linkStateFile, readLinkState, recentDispatches } from "./link-state";
import type { WrittenWake } from "../wakes/notify";
import { type Mirrors, applyMissing, applyTaskLine, commitWakeLine, localProject } from "./mirror";
import { loadMachines, sshDir } from "./registry";
import { lastLine, sshArgv } from "./ssh";

type Link = { stop(): void; send(line: object): void; askedAt: number };

/** Far above a task file's size (a prompt is at most 100 KB, an output a few KB). */
const MAX_LINE = 4 * 1024 * 1024;

/** Runs `fn` alone with the pass: a relayed wake's journal and the pass's recovery of the same journal never interleave. */
export type Exclusive = <T>(fn: () => Promise<T>) => Promise<T>;

/** `onWake`: a wake this relay committed (not a copy sent again), for the general's ping (WAK-14). */
export function createRelays(deps: Pick<Deps, "env" | "clock">, root: string, log: (message: string) => void, exclusive: Exclusive, onWake: (w: WrittenWake) => void) {
  const links = new Map<string, Link>();
  const retry = new Map<string, { at: number; wait: number }>();

  const setState = (machine: string, state: LinkState["state"], error?: string) => {
    const before = readLinkState(root, machine);
    if (before?.state === state && before.error === error) return;
    ensureStateDir(root, join(root, "relay"));
    writeStateFile(root, linkStateFile(root, machine), renderState({ state, since: isoTime(deps.clock.now()), error }));
    log(`sentinel: machine ${machine} ${state === "up" ? "reachable: relaying its wakes" : `unreachable: ${error ?? "the link ended"}`}`);
  };

  const handle = async (machine: string, line: string): Promise<object | undefined> => {
    const msg = JSON.parse(line) as { t?: string; key?: string; task?: unknown; wake?: unknown; project?: unknown };
    if (msg.t === "hello") {
      setState(machine, "up");
      retry.delete(machine);
      return undefined;
    }
    if (typeof msg.key !== "string") return undefined;
    const key = msg.key;
    if (msg.t === "task") await exclusive(() => applyTaskLine(root, machine, key, msg.task, msg.project));
    if (msg.t === "missing") {
      const ids = (msg as { ids?: unknown }).ids;
      if (!Array.isArray(ids)) return undefined;
      const lost = await exclusive(() => applyMissing(root, machine, key, ids.map(String), isoTime(deps.clock.now())));
      for (const wake of lost) {
        log(`sentinel: ${wake.kind} ${wake.task_id} (${key}) on machine ${machine}: ${wake.old_status} -> interrupted, the machine no longer has it`);
        const paths = localProject(root, key);
        if (paths) onWake({ kind: "soldier", home: paths.project, project: paths.project, wake });
      }
      return undefined;
    }
    if (msg.t !== "wake") return undefined;
    const committed = await exclusive(() => commitWakeLine(root, machine, key, msg.wake));
    const fresh = committed?.fresh;
    if (fresh) {
      log(`sentinel: ${fresh.wake.kind} ${fresh.wake.task_id} (${key}) on machine ${machine}: ${fresh.wake.old_status} -> ${fresh.wake.new_status}, relayed`);
      onWake({ kind: "soldier", home: fresh.project, project: fresh.project, wake: fresh.wake });
    }
    return committed?.ack;
  };

  const start = (machine: string, destination: string, vxPath: string, selfId: string) => {
    ensureStateDir(root, sshDir(root));
    const proc = Bun.spawn(sshArgv(root, destination, [vxPath, "machine", "relay", selfId]), {
      env: deps.env as Record<string, string>,
      stdin: "pipe",
      stdout: "pipe",
      stderr: "pipe",
    });
    const err = drainBounded(proc.stderr, { tailLines: 5 });
    let stopped = false;
    links.set(machine, {
      stop() {
        stopped = true;
        proc.kill("SIGTERM");
      },
      send(line) {
        proc.stdin.write(`${JSON.stringify(line)}\n`);
        proc.stdin.flush();
      },
      askedAt: Number.NEGATIVE_INFINITY,
    });
    const reading = (async () => {
      const decoder = new TextDecoder();
      let buffer = "";
      for await (const chunk of proc.stdout) {
        buffer += decoder.decode(chunk, { stream: true });
        if (buffer.length > MAX_LINE) {
          // Never held whole: a line past any task's size is not a relay's; the link starts over.
          log(`sentinel: machine ${machine}: a relayed line over ${MAX_LINE} characters, the link is restarted`);
          proc.kill("SIGTERM");
          return;
        }
        for (let nl = buffer.indexOf("\n"); nl >= 0; nl = buffer.indexOf("\n")) {
          const line = buffer.slice(0, nl);
          buffer = buffer.slice(nl + 1);
          try {
            const ack = await handle(machine, line);
            if (ack) links.get(machine)?.send(ack);
          } catch (e) {
            log(`sentinel: machine ${machine}: a relayed line was not applied (it comes again): ${errorMessage(e)}`);
          }
        }
      }
    })();
    void Promise.all([proc.exited, reading.catch(() => undefined), err.done]).then(([code]) => {
      links.delete(machine);
      if (stopped) return;
      setState(machine, "down", `${lastLine(err.tail())} (ssh exited ${code})`);
      const wait = Math.min((retry.get(machine)?.wait ?? scaled("relayRetry", deps.env) / 2) * 2, scaled("relayRetryMax", deps.env));
      retry.set(machine, { at: deps.clock.monotonic() + wait, wait });
    });
  };

  return {
    /** Starts the links the pass's mirrors (and recent dispatches) need, past their backoff, stops the others, and now and then asks each machine whether it still has its tasks in flight. */
    sync(mirrors: Mirrors): void {
      const wanted = new Set([...mirrors.wanted, ...recentDispatches(root, deps.clock.now(), scaled("relayLinger", deps.env))]);
      for (const [machine, link] of links) if (!wanted.has(machine)) link.stop();
      const now = deps.clock.monotonic();
      for (const [machine, link] of links) {
        if (now - link.askedAt < scaled("relayAsk", deps.env)) continue;
        link.askedAt = now;
        try {
          for (const [key, ids] of mirrors.inFlight.get(machine) ?? []) link.send({ ask: key, ids });
        } catch (e) {
          log(`sentinel: machine ${machine}: could not ask after its tasks: ${errorMessage(e)}`);
        }
      }
      if (wanted.size === 0) return;
      let doc: ReturnType<typeof loadMachines>;
      try {
        doc = loadMachines(root);
      } catch (e) {
        log(`sentinel: machines.json: ${errorMessage(e)}`);
        return;
      }
      for (const machine of wanted) {
        const m = doc.machines[machine];
        if (links.has(machine) || !m || !doc.selfId) continue;
        if ((retry.get(machine)?.at ?? 0) > deps.clock.monotonic()) continue;
        start(machine, m.destination, m.vx_path, doc.selfId);
      }
    },
    close(): void {
      for (const link of links.values()) link.stop();
    },
  };
}

/** A promise chain: one holder at a time. */
export function createExclusive(): Exclusive {
  let tail: Promise<unknown> = Promise.resolve();
  return <T>(fn: () => Promise<T>) => {
    const run = tail.then(fn, fn);
    tail = run.catch(() => undefined);
    return run;
  };
}

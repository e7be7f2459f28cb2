/**
 * Finding and ending the processes of a test sshd (`sshd-real.ts`), each verified just before it is
 * signalled, never by name alone. Three kinds, each told apart differently because each is seen
 * differently in /proc (Linux only):
 * - the listener and its per-connection re-execs: `-f <dir>/sshd_config` is in their command line,
 *   also after sshd retitles itself ("sshd: /usr/sbin/sshd -D ... -f ... [listener] ...");
 * - session processes ("sshd: root@notty"): retitled without the config and their environment
 *   overwritten by the title, so they are found as descendants of a listener, before it is signalled
 *   (they outlive it, reparented away);
 * - the programs sessions ran: sshd gives them `SSHD_KIT_DIR=<dir>` (its SetEnv), which stays with
 *   them after a notty session ends (they keep running) or a `setsid` leaves its tree.
 */
import { readFileSync, readdirSync } from "node:fs";
import { basename } from "node:path";

/** The variable the kit's sshd sets in every session; its value is the server's private dir. */
export const SESSION_MARK = "SSHD_KIT_DIR";

function read(path: string): string | undefined {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return undefined; // gone, or not ours to read
  }
}

function allPids(): number[] {
  return readdirSync("/proc")
    .filter((n) => /^\d+$/.test(n))
    .map(Number)
    .filter((p) => p !== process.pid);
}

/** The command line as one string (a retitled sshd's is its title padded with NULs). */
function commandLine(pid: number): string | undefined {
  return read(`/proc/${pid}/cmdline`)?.replace(/\0+/g, " ").trim();
}

/** Whether `pid` runs sshd (or OpenSSH 9.8+'s sshd-session), by its command line's first word. */
function isSshdProcess(pid: number): boolean {
  const first = commandLine(pid)?.split(" ")[0] ?? "";
  return basename(first.replace(/:$/, "")).startsWith("sshd");
}

/** The private dir named by a listener's (or re-exec's) `-f <dir>/sshd_config`, if `pid` is one. */
export function serverDirOf(pid: number): string | undefined {
  if (!isSshdProcess(pid)) return undefined;
  return / -f (\S+)\/sshd_config(?: |$)/.exec(commandLine(pid) ?? "")?.[1];
}

function markOf(pid: number): string | undefined {
  const env = read(`/proc/${pid}/environ`);
  return env
    ?.split("\0")
    .find((kv) => kv.startsWith(`${SESSION_MARK}=`))
    ?.slice(SESSION_MARK.length + 1);
}

function parentOf(pid: number): number | undefined {
  const stat = read(`/proc/${pid}/stat`);
  // The name field may hold spaces and parentheses: the fields after its last ")" are fixed.
  const ppid = stat?.slice(stat.lastIndexOf(")") + 2).split(" ")[1];
  return ppid === undefined ? undefined : Number(ppid);
}

/** True while `pid` runs (a zombie counts as gone: it holds nothing but its slot). */
export function running(pid: number): boolean {
  const stat = read(`/proc/${pid}/stat`);
  return stat !== undefined && !/^\d+ \(.*\) [ZX] /s.test(stat);
}

/** A found process, what it is, and how it is re-verified just before each signal. */
type Found = { pid: number; kind: "server" | "session" | "program"; still: () => boolean };

/** Every process of the servers whose private dir `owns` accepts. */
export function serverProcesses(owns: (dir: string) => boolean): Found[] {
  const pids = allPids();
  const children = new Map<number, number[]>();
  for (const pid of pids) {
    const parent = parentOf(pid);
    if (parent !== undefined) children.set(parent, [...(children.get(parent) ?? []), pid]);
  }
  const found = new Map<number, Found>();
  const ownedServer = (pid: number) => {
    const dir = serverDirOf(pid);
    return dir !== undefined && owns(dir);
  };
  for (const pid of pids.filter(ownedServer)) {
    found.set(pid, { pid, kind: "server", still: () => ownedServer(pid) });
    // Descendants that are sshd (sessions); the programs below them are found by their mark.
    const queue = [...(children.get(pid) ?? [])];
    for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
      if (isSshdProcess(next) && !found.has(next)) found.set(next, { pid: next, kind: "session", still: () => isSshdProcess(next) });
      queue.push(...(children.get(next) ?? []));
    }
  }
  const ownedProgram = (pid: number) => {
    const mark = markOf(pid);
    return mark !== undefined && owns(mark);
  };
  for (const pid of pids) if (!found.has(pid) && ownedProgram(pid)) found.set(pid, { pid, kind: "program", still: () => ownedProgram(pid) });
  return [...found.values()];
}

function signal(found: Found[], sig: NodeJS.Signals): void {
  for (const f of found) {
    if (!f.still()) continue;
    try {
      process.kill(f.pid, sig);
    } catch {
      // exited between the check and the signal
    }
  }
}

/** Polls until none of `found` runs or `ms` passes; true when none runs. */
async function gone(found: Found[], ms: number): Promise<boolean> {
  const end = Date.now() + ms;
  while (found.some((f) => running(f.pid))) {
    if (Date.now() > end) return false;
    await Bun.sleep(20);
  }
  return true;
}

/** TERM, then KILL what is left after `graceMs`. */
async function terminate(found: Found[], graceMs: number): Promise<void> {
  signal(found, "SIGTERM");
  // A paused (SIGSTOPped) process acts on TERM only once continued.
  signal(found, "SIGCONT");
  if (await gone(found, graceMs)) return;
  signal(found, "SIGKILL");
  await gone(found, graceMs);
}

/**
 * Ends every process of the servers `owns` accepts, programs first, then sessions, then the
 * servers: each parent is still there to reap its children, rather than leaving zombies to init.
 * Rounds, because a session may start a program between one look and its signal.
 */
export async function endServers(owns: (dir: string) => boolean, graceMs: number): Promise<void> {
  for (let round = 0; round < 5; round++) {
    const found = serverProcesses(owns);
    if (found.length === 0) return;
    const of = (kind: Found["kind"]) => found.filter((f) => f.kind === kind);
    await terminate(of("program"), graceMs);
    await terminate(of("session"), graceMs);
    await terminate(of("server"), graceMs);
  }
}

/**
 * The preload's net for a test that timed out before its `stop()`: kills at once every process of a
 * kit server whose private dir is inside `runDir` (the dir's place proves the server is the run's).
 */
export function sweepSshd(runDir: string): void {
  const owns = (dir: string) => dir.startsWith(`${runDir}/`);
  for (let round = 0; round < 3; round++) {
    const found = serverProcesses(owns);
    if (found.length === 0) return;
    signal(found, "SIGKILL");
  }
}

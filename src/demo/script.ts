// `vx demo`'s scripted commander (CMD-DEMO-01), running real vx commands. alpha and charlie change the same line (the second to
// land must rebase); bravo, a scout, asks a question before it reports. It fails when a step does not do what it should.
import { existsSync, readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import type { Deps } from "../deps";
import { EXIT, VxError } from "../errors";
import { GUARDS } from "../time";
import type { Narrator } from "./narrate";
import { type Run, type World, commitAll, run } from "./world";

type Soldier = { name: string; id: string; kind: "mission" | "scout"; prompt: string; session?: string };
type Change = { id: string; to: string; report?: string };

export const ORDERS: Omit<Soldier, "id">[] = [
  { name: "alpha", kind: "mission", prompt: "Make the greeting friendlier.\nwrite greeting.txt: Hello, world!" },
  { name: "bravo", kind: "scout", prompt: "Find out which language the greeting should be in, and report.\nask: English or Spanish for the greeting?" },
  { name: "charlie", kind: "mission", prompt: "Make the greeting welcome our users.\nwrite greeting.txt: Welcome, friends of the shop!" },
];
const ANSWER = "Spanish.\nreport: The greeting should be in Spanish, as the general decided: ¡Hola, mundo!";

class DemoFailure extends VxError {}

/** The wake lines of a reason text (`- mission <id>: running -> done`, a scout's `  report: <path>` below). */
export function wakeChanges(text: string): Change[] {
  const re = /^- (?:mission|scout) ([0-9a-f]{16}): \S+ -> (\S+)$(?:\n  report: (.+)$)?/gm;
  return [...text.matchAll(re)].map((m) => ({ id: m[1]!, to: m[2]!, ...(m[3] ? { report: m[3] } : {}) }));
}

export type Commander = {
  deps: Deps;
  world: World;
  say: Narrator;
  signal: AbortSignal;
  /** The await this commander is waiting on, so an interrupted demo can end it. */
  awaiting?: Bun.Subprocess;
};

/** A Ctrl-C is acted on before the next command starts (one already running finishes: it is the world's, torn down after). */
function stopIfInterrupted(c: Commander): void {
  if (c.signal.aborted) throw new DemoFailure("interrupted");
}

async function vx(c: Commander, args: string[], opts: { show?: boolean; ok?: boolean; quiet?: boolean } = {}): Promise<Run> {
  stopIfInterrupted(c);
  if (opts.show !== false) c.say.cmd(args);
  const r = await run(c.deps, [...c.deps.self, ...args], c.world.project, c.world.env);
  const shown = opts.quiet ? r.stdout : `${r.stdout}${r.stderr}`;
  if (opts.show !== false && shown.trim()) c.say.out(shown);
  if (opts.ok !== false && r.code !== 0) throw new DemoFailure(`vx ${args[0]} exited ${r.code}: ${(r.stderr || r.stdout).trim().split("\n").pop()}`);
  return r;
}

async function dispatchAll(c: Commander): Promise<Soldier[]> {
  c.say.title("2. Dispatch: one camp per soldier");
  c.say.say("The commander splits the work and dispatches a soldier per piece. Each soldier gets a camp: its");
  c.say.say("own git worktree and branch, so soldiers never step on each other or on the project's checkout.");
  c.say.say("A mission delivers commits; a scout delivers a report. Here the three are dispatched at once:");
  stopIfInterrupted(c);
  const runs = await Promise.all(
    ORDERS.map((o) => {
      const args = ["dispatch", "--kind", o.kind, "--backend", "tmux", "--harness", "demo", o.prompt];
      return run(c.deps, [...c.deps.self, ...args], c.world.project, c.world.env).then((r) => ({ o, args, r }));
    }),
  );
  stopIfInterrupted(c);
  const soldiers: Soldier[] = [];
  for (const { o, args, r } of runs) {
    c.say.cmd(args);
    c.say.out(`${r.stdout}${r.stderr}`);
    const id = /task_id=([0-9a-f]{16})/.exec(r.stdout)?.[1];
    if (r.code !== 0 || !id || !/^status=running$/m.test(r.stdout)) throw new DemoFailure(`dispatching ${o.name} did not leave a running soldier`);
    soldiers.push({ ...o, id, session: /tmux: session=(\S+)/.exec(r.stdout)?.[1] });
  }
  c.say.say("");
  c.say.say("Each dispatch returned once its soldier had taken the prompt and was still working: the commander");
  c.say.say("is free at once, and never watches a soldier itself.");
  c.say.say("Each soldier runs in its own tmux session on the demo's private server. Watch one live (read-only");
  c.say.say("is safest; detach with Ctrl-b d):");
  for (const s of soldiers) if (s.session) c.say.say(`  ${s.name}: tmux -S ${c.world.socket} attach -r -t ${s.session}`);
  c.say.say(`  the commander's log: tmux -S ${c.world.socket} attach -r -t commander`);
  c.say.say("");
  c.say.say("The first dispatch also started the sentinel: one background process per state root that watches");
  c.say.say("every soldier (its harness's reported state, its pane, its commits) and writes a wake for the");
  c.say.say("commander when a soldier finishes, asks something, or dies.");
  return soldiers;
}

/** The real `vx sentinel await`, as the commander's Stop hook runs it: blocks until a wake, exits 2. */
async function awaitWake(c: Commander): Promise<Change[]> {
  // The signal handler ends a running await; one started after it would block until a wake.
  stopIfInterrupted(c);
  c.say.cmd(["sentinel", "await"]);
  const started = c.deps.clock.now();
  const proc = Bun.spawn([...c.deps.self, "sentinel", "await"], { cwd: c.world.project, env: c.world.env, stdin: "ignore", stdout: "ignore", stderr: "pipe" });
  c.awaiting = proc;
  const timer = setTimeout(() => proc.kill("SIGTERM"), GUARDS.demoWake);
  const [code, text] = await Promise.all([proc.exited, new Response(proc.stderr).text()]);
  clearTimeout(timer);
  c.awaiting = undefined;
  stopIfInterrupted(c);
  if (code !== EXIT.wakeDelivered) throw new DemoFailure(`vx sentinel await exited ${code} without a wake (after ${Math.round((c.deps.clock.now() - started) / 1000)}s)`);
  c.say.say(`    (woken after ${((c.deps.clock.now() - started) / 1000).toFixed(1)}s)`);
  c.say.out(text);
  const changes = wakeChanges(text);
  if (changes.length === 0) throw new DemoFailure("the wake named no soldier");
  return changes;
}

/** The commander's answers to wakes, until every soldier is landed or struck. */
async function command(c: Commander, soldiers: Soldier[]): Promise<void> {
  const [alpha, bravo, charlie] = soldiers as [Soldier, Soldier, Soldier];
  const byId = new Map(soldiers.map((s) => [s.id, s]));
  const done = new Set<string>();
  let charlieDone = false;
  let rebaseAsked = false;
  c.say.title("3. The commander waits for wakes");
  c.say.say("Its turn over, a commander does not poll. Its Stop hook runs 'vx sentinel await', which blocks");
  c.say.say("until the sentinel writes a wake, then hands the wake's text to the commander as its next input.");
  c.say.say("The demo runs that same command and acts on what it says. A wake is written when the sentinel");
  c.say.say("sees a soldier's turn end (its harness ran 'vx report idle') and reads why: a new commit (a");
  c.say.say("mission is done), a report file (a scout is done), or a 'needs-decision:' line (blocked).");

  const landCharlie = async () => {
    if (!rebaseAsked) {
      c.say.say("charlie is done too. alpha already moved main, and land's own rebase of charlie would conflict:");
      const r = await vx(c, ["land", charlie.id], { ok: false });
      if (r.code === 0) throw new DemoFailure("landing charlie over alpha's change should have been refused");
      c.say.say("So the commander has charlie rebase onto main (a follow-up prompt to the same soldier):");
      rebaseAsked = true;
      settledBy(await vx(c, ["prompt", charlie.id, "Rebase onto main; where the greeting conflicts, keep both lines.\nrebase onto main"]), charlie.id, "prompt");
      return;
    }
    c.say.say("charlie rebased onto main, so its branch fast-forwards main now:");
    await vx(c, ["land", charlie.id]);
    done.add(charlie.id);
  };

  // Changes to act on: from wakes, or from a follow-up whose quick settle saw the turn end at once.
  const todo: Change[] = [];
  const settledBy = (r: Run, id: string, what: string) => {
    const status = /^status=(\w+)$/m.exec(r.stdout)?.[1];
    if (!status || status === "running") return;
    c.say.say(`(${what} waited briefly for the soldier's turn and saw it end ${status}: no wake needed for that.)`);
    todo.push({ id, to: status });
  };
  while (done.size < soldiers.length) {
    if (todo.length === 0) todo.push(...(await awaitWake(c)));
    const { id, to, report } = todo.shift()!;
    {
      const s = byId.get(id);
      if (!s) throw new DemoFailure(`a wake named task ${id}, which the demo never dispatched`);
      if (to === "blocked" && s === bravo) {
        c.say.say("bravo asks a question. The commander answers it (a person would be asked when it matters):");
        settledBy(await vx(c, ["decide", bravo.id, ANSWER]), bravo.id, "decide");
      } else if (to === "done" && s === alpha) {
        c.say.say("alpha finished with a commit. Landing fast-forwards main to its branch (no merge commit), then");
        c.say.say("strikes the camp: the soldier's session closed, its worktree back in the pool for the next one.");
        await vx(c, ["land", alpha.id]);
        done.add(alpha.id);
        if (charlieDone) await landCharlie();
      } else if (to === "done" && s === bravo) {
        c.say.say("bravo the scout delivered its report:");
        c.say.out(readReport(report ?? findReport(c.world, bravo.id)));
        c.say.say("A scout has nothing to land: once its report is read, the commander strikes its camp:");
        await vx(c, ["strike", bravo.id]);
        done.add(bravo.id);
      } else if (to === "done" && s === charlie) {
        charlieDone = true;
        if (done.has(alpha.id)) await landCharlie();
        else c.say.say("charlie is done, but it changed the same line as alpha: the commander lands alpha first.");
      } else {
        throw new DemoFailure(`${s.name} went ${to}, which the script never expects`);
      }
    }
  }
}

/** A scout's report file in the demo's state (`reports/<soldier name>-<id>.md`), for a settle no wake told. */
function findReport(w: World, id: string): string | undefined {
  const projects = join(w.home, ".vexillum", "projects");
  for (const key of readdirSync(projects)) {
    const dir = join(projects, key, "reports");
    const name = existsSync(dir) ? readdirSync(dir).find((f) => f.endsWith(`-${id}.md`)) : undefined;
    if (name) return join(dir, name);
  }
  return undefined;
}

function readReport(path: string | undefined): string {
  if (!path) return "(no report path recorded)";
  try {
    return readFileSync(path, "utf8");
  } catch {
    return `(could not read ${path})`;
  }
}

/** The whole script, after the world exists; throws DemoFailure naming the step that failed. */
export async function commanderScript(c: Commander): Promise<void> {
  c.say.title("1. A project");
  c.say.say(`A throwaway git project with two files on main: ${c.world.project}`);
  c.say.say(`vx keeps its state (tasks, camps, wakes, the sentinel) under a private HOME: ${join(c.world.home, ".vexillum")}`);
  c.say.say("'vx init' prepares the project for a commander: instructions in CLAUDE.md, a skill, and a Stop hook");
  c.say.say("that wakes the commander. Soldiers run in tmux sessions here (herdr is the other backend).");
  await vx(c, ["init", "--yes", "--backend", "tmux"], { quiet: true });
  await commitAll(c.deps, c.world, "vx init");
  const soldiers = await dispatchAll(c);
  await command(c, soldiers);
  c.say.title("4. Where things stand");
  c.say.say("Landed and struck tasks leave vx status's default list; --all shows them, each with its landing commit:");
  await vx(c, ["status", "--all"]);
  await checkFinal(c, soldiers);
  c.say.say("$ git log --oneline main");
  c.say.out((await run(c.deps, ["git", "log", "--oneline", "main"], c.world.project, c.world.env)).stdout);
  c.say.say("$ cat greeting.txt");
  c.say.out(readFileSync(join(c.world.project, "greeting.txt"), "utf8"));
}

/** Every soldier done, every soldier's session gone (struck), both missions' lines on main. */
async function checkFinal(c: Commander, soldiers: Soldier[]): Promise<void> {
  const doc = JSON.parse((await vx(c, ["status", "--json"], { show: false })).stdout) as { tasks?: { id: string; status: string }[] };
  for (const s of soldiers) {
    const status = doc.tasks?.find((t) => t.id === s.id)?.status;
    if (status !== "done") throw new DemoFailure(`${s.name} ended ${status ?? "missing"}, not done`);
  }
  const sessions = await run(c.deps, ["tmux", "-S", c.world.socket, "list-sessions", "-F", "#{session_name}"], c.world.project, c.world.env);
  const left = soldiers.filter((s) => s.session && sessions.stdout.split("\n").includes(s.session));
  if (left.length) throw new DemoFailure(`struck soldiers still have tmux sessions: ${left.map((s) => s.name).join(", ")}`);
  const greeting = readFileSync(join(c.world.project, "greeting.txt"), "utf8");
  if (!greeting.includes("Hello, world!") || !greeting.includes("Welcome, friends")) throw new DemoFailure("main does not hold both missions' greetings");
}

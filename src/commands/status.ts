/** `vx status [--json]`: the troop of the current project (TSK-08..10). */
import { leasedTasks } from "../camps/pool";
import { type MissionLanding, landingJson, landingLine, landingReport, missionsInFlight } from "../camps/overlap";
import { defineVxCommand } from "../command";
import type { Deps } from "../deps";
import { EXIT, UsageError } from "../errors";
import { openProject } from "../project";
import type { Loaded } from "../state/record";
import { SCHEMA_VERSION, type Task } from "../state/schemas";
import type { ProjectPaths } from "../state/paths";
import { listTasks, sortTasks } from "../state/tasks";
import { printable } from "../printable";
import { isPutAway, shownState } from "../state/shown";
import { isoTime } from "../time";
import { scoutReports } from "../lifecycle/observe";
import { endingNote } from "../soldiers/wait";
import { type LinkState, readLinkState } from "../machines/link-state";
import { type UsageResult, tasksUsage, usageLine, usageTotal } from "../cost";

/** Whitespace runs collapsed; more than 60 characters cut to 60 plus `...`. */
function shortPrompt(prompt: string): string {
  const flat = prompt.replace(/\s+/g, " ").trim();
  const chars = Array.from(flat);
  return chars.length > 60 ? `${chars.slice(0, 60).join("")}...` : flat;
}

/**
 * CMD-RESUME-03: the closing line naming the interrupted tasks whose camp is still leased (after a
 * reboot, every soldier that was running), or undefined when there are none. Without a readable
 * pool every interrupted task with a camp path counts.
 */
function resumableLine(tasks: readonly Task[], leased: ReadonlySet<string> | undefined): string | undefined {
  const ids = tasks.filter((t) => t.status === "interrupted" && t.camp_path && (leased ? leased.has(t.id) : true)).map((t) => t.id);
  if (ids.length === 0) return undefined;
  if (ids.length === 1) return `1 interrupted task can be resumed in its camp, its work kept: vx resume ${ids[0]}`;
  return `${ids.length} interrupted tasks can be resumed in their camps, their work kept: vx resume <task-id> (${ids.join(", ")})`;
}

/** Why a task stopped, for the statuses that need one: its output's closing `[vexillum]` note. */
function whyLine(t: Task): string | undefined {
  if (t.status !== "failed" && t.status !== "interrupted" && t.status !== "unconfirmed") return undefined;
  const note = endingNote(t.output);
  return note ? `    why: ${note.replace(/^\[vexillum\]\s*/, "")}` : undefined;
}

/** MCH-09: where a mirrored task runs, and when its machine cannot be reached, that its status is the last one relayed. */
function machineLine(t: Task, links: Readonly<Record<string, LinkState | undefined>>): string | undefined {
  if (!t.machine) return undefined;
  const link = links[t.machine];
  if (link?.state !== "down") return `    on machine ${t.machine}`;
  return `    on machine ${t.machine}, unreachable since ${link.since}${link.error ? ` (${link.error})` : ""}: its status now is unknown; shown is the last relayed`;
}

/** The link state of every machine the tasks name. */
function linksOf(root: string, tasks: readonly Loaded<Task>[]): Record<string, LinkState | undefined> {
  const out: Record<string, LinkState | undefined> = {};
  for (const { value: t } of tasks) if (t.machine && !(t.machine in out)) out[t.machine] = readLinkState(root, t.machine);
  return out;
}

type View = { leased?: ReadonlySet<string>; all: boolean };

/** TSK-12's closing line for the tasks the default view left out. */
function putAwayLine(n: number): string {
  return `${n} landed, struck or failed ${n === 1 ? "task" : "tasks"} not shown - vx status --all shows them`;
}

function statusLines(
  tasks: Loaded<Task>[],
  view: View,
  landing: readonly MissionLanding[] = [],
  resumable?: string,
  reports: Readonly<Record<string, string>> = {},
  links: Readonly<Record<string, LinkState | undefined>> = {},
  usage: Readonly<Record<string, UsageResult>> = {},
): string {
  if (tasks.length === 0) return "no tasks yet in this project.\n";
  const out: string[] = [];
  let putAway = 0;
  for (const { value: t } of sortTasks(tasks)) {
    if (!view.all && isPutAway(t, view.leased)) {
      putAway++;
      continue;
    }
    out.push(`${t.id}  ${t.kind.padEnd(7)}  ${shownState(t, view.leased).padEnd(11)}  ${(t.camp_branch ?? "").padEnd(24)}  ${shortPrompt(t.prompt)}`);
    if (t.landed_commit) out.push(`    landed: ${t.landed_commit}${t.landed_at ? ` at ${t.landed_at}` : ""}`);
    if (t.status === "blocked" && t.decision) out.push(`    question: ${t.decision.question}`);
    const why = whyLine(t);
    if (why) out.push(why);
    if (reports[t.id]) out.push(`    report: ${reports[t.id]}`);
    const where = machineLine(t, links);
    if (where) out.push(where);
    const l = landing.find((x) => x.id === t.id);
    if (l) out.push(landingLine(l));
    const cost = usageLine(usage[t.id]);
    if (cost) out.push(cost);
  }
  if (resumable) out.push(resumable);
  if (putAway > 0) out.push(putAwayLine(putAway));
  // Everything here came from task files: never let it drive the terminal.
  return `${out.map(printable).join("\n")}\n`;
}

/**
 * TSK-11: the landing picture of the missions in flight with commits. A pool that cannot be read
 * (doctor reports it) widens the search to every mission with a camp rather than failing status.
 */
async function landingOf(deps: Deps, paths: ProjectPaths, tasks: Loaded<Task>[], leased: Set<string> | undefined): Promise<MissionLanding[]> {
  const missions = missionsInFlight(
    sortTasks(tasks).map((t) => t.value),
    leased,
  );
  if (missions.length === 0) return [];
  try {
    return await landingReport(paths.project, missions, deps.exec);
  } catch {
    // A forecast git could not give (git itself missing) must not cost the troop's listing.
    return [];
  }
}

/** The tasks holding a camp lease; undefined when the pool cannot be read (doctor reports it). */
function leasedOrUnknown(paths: ProjectPaths): Set<string> | undefined {
  try {
    return leasedTasks(paths);
  } catch {
    return undefined;
  }
}

function usageJson(paths: ProjectPaths, tasks: Loaded<Task>[], env: Deps["env"]) {
  const usage = tasksUsage(
    paths,
    sortTasks(tasks).map((t) => t.value),
    env,
  );
  return { usage, usage_total: usageTotal(usage) };
}

export const statusCommand = defineVxCommand({
  name: "status",
  summary: "Report the troop: every mission and scout in the current project",
  usage: ["status [--json] [--all]"],
  args: {
    json: { type: "boolean", description: "Print one JSON object with every task as persisted" },
    all: { type: "boolean", description: "Also list the landed, struck and failed tasks" },
  },
  unknownFlag: (flag) => `unknown status flag "${flag}"`,
  async run(args, deps) {
    if (args._.length > 0) throw new UsageError(`unknown status flag "${args._[0]}"`, "status");
    const project = await openProject(deps);
    const tasks = listTasks(project.paths);
    const leased = leasedOrUnknown(project.paths);
    const landing = await landingOf(deps, project.paths, tasks, leased);
    if (!args.json) {
      const ordered = sortTasks(tasks).map((t) => t.value);
      const usage = tasksUsage(project.paths, ordered, deps.env);
      deps.stdout.write(statusLines(tasks, { leased, all: args.all === true }, landing, resumableLine(ordered, leased), scoutReports(project.paths, ordered), linksOf(project.root, tasks), usage));
      return EXIT.ok;
    }
    const reports = scoutReports(
      project.paths,
      tasks.map((t) => t.value),
    );
    const doc = {
      schema_version: SCHEMA_VERSION,
      generated_at: isoTime(deps.clock.now()),
      project_root: project.paths.stateDir,
      tasks: sortTasks(tasks).map((t) => t.raw),
      // Only when some mission has commits ahead, so the envelope is unchanged otherwise.
      ...(landing.length > 0 ? { landing: landing.map(landingJson) } : {}),
      // Likewise only when a scout's report exists: its path by task id.
      ...(Object.keys(reports).length > 0 ? { reports } : {}),
      // And only when a task runs on another machine: each machine's link (MCH-09).
      ...(tasks.some((t) => t.value.machine) ? { machines: linksOf(project.root, tasks) } : {}),
      // TSK-13, TSK-14: with any task, each one's usage (or why it is unknown) by id, and the project's total.
      ...(tasks.length > 0 ? usageJson(project.paths, tasks, deps.env) : {}),
    };
    deps.stdout.write(`${JSON.stringify(doc, null, 2)}\n`);
    return EXIT.ok;
  },
});

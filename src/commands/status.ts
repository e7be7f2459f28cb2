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
import { listTasks } from "../state/tasks";
import { printable } from "../printable";
import { isoTime } from "../time";

/** Most recently updated first; ties by id ascending. */
export function sortTasks<T extends { value: Task }>(tasks: T[]): T[] {
  return [...tasks].sort((a, b) => {
    const byTime = Date.parse(b.value.updated_at) - Date.parse(a.value.updated_at);
    if (byTime !== 0) return byTime;
    return a.value.id < b.value.id ? -1 : a.value.id > b.value.id ? 1 : 0;
  });
}

/** Whitespace runs collapsed; more than 60 characters cut to 60 plus `...`. */
export function shortPrompt(prompt: string): string {
  const flat = prompt.replace(/\s+/g, " ").trim();
  const chars = Array.from(flat);
  return chars.length > 60 ? `${chars.slice(0, 60).join("")}...` : flat;
}

export function statusLines(tasks: Loaded<Task>[], landing: readonly MissionLanding[] = []): string {
  if (tasks.length === 0) return "no tasks yet in this project.\n";
  const out: string[] = [];
  for (const { value: t } of sortTasks(tasks)) {
    out.push(
      `${t.id}  ${t.kind.padEnd(7)}  ${t.status.padEnd(11)}  ${(t.camp_branch ?? "").padEnd(24)}  ${shortPrompt(t.prompt)}`,
    );
    if (t.status === "blocked" && t.decision) out.push(`    question: ${t.decision.question}`);
    const l = landing.find((x) => x.id === t.id);
    if (l) out.push(landingLine(l));
  }
  // Everything here came from task files: never let it drive the terminal.
  return `${out.map(printable).join("\n")}\n`;
}

/**
 * TSK-11: the landing picture of the missions in flight with commits. A pool that cannot be read
 * (doctor reports it) widens the search to every mission with a camp rather than failing status.
 */
async function landingOf(deps: Deps, paths: ProjectPaths, tasks: Loaded<Task>[]): Promise<MissionLanding[]> {
  let leased: Set<string> | undefined;
  try {
    leased = leasedTasks(paths);
  } catch {
    leased = undefined;
  }
  const missions = missionsInFlight(sortTasks(tasks).map((t) => t.value), leased);
  if (missions.length === 0) return [];
  try {
    return await landingReport(paths.project, missions, deps.exec);
  } catch {
    // A forecast git could not give (git itself missing) must not cost the troop's listing.
    return [];
  }
}

export const statusCommand = defineVxCommand({
  name: "status",
  summary: "Report the troop: every mission and scout in the current project",
  usage: ["status [--json]"],
  args: {
    json: { type: "boolean", description: "Print one JSON object with every task as persisted" },
  },
  unknownFlag: (flag) => `unknown status flag "${flag}"`,
  async run(args, deps) {
    if (args._.length > 0) throw new UsageError(`unknown status flag "${args._[0]}"`, "status");
    const project = await openProject(deps);
    const tasks = listTasks(project.paths);
    const landing = await landingOf(deps, project.paths, tasks);
    if (!args.json) {
      deps.stdout.write(statusLines(tasks, landing));
      return EXIT.ok;
    }
    const doc = {
      schema_version: SCHEMA_VERSION,
      generated_at: isoTime(deps.clock.now()),
      project_root: project.paths.stateDir,
      tasks: sortTasks(tasks).map((t) => t.raw),
      // Only when some mission has commits ahead, so the envelope is unchanged otherwise.
      ...(landing.length > 0 ? { landing: landing.map(landingJson) } : {}),
    };
    deps.stdout.write(`${JSON.stringify(doc, null, 2)}\n`);
    return EXIT.ok;
  },
});

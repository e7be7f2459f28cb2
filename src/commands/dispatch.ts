/**
 * `vx dispatch <prompt...>`: start a soldier in its own camp (CMD-DISPATCH-01..06). Validation
 * first, then ensure-running the sentinel, record the commander, lease a camp and save the task
 * `pending` with the camp fields at once (a later failure can then never leak a slot), and launch.
 */
import { backendFor } from "../backends";
import { DEFAULT_BACKEND } from "../backends/names";
import { acquireCamp, releaseLease } from "../camps/pool";
import { campBase, currentBranch, hasCommit, isClean } from "../camps/git";
import { defineVxCommand } from "../command";
import { noteCommander } from "../commanders/resolve";
import { UsageError, VxError } from "../errors";
import { DEFAULT_HARNESS } from "../harnesses";
import { checkModelEffort } from "../harnesses/model-effort";
import { assertPromptSize } from "../soldiers/prompt-text";
import { controlNote, terminalText } from "../terminal-text";
import { openProject } from "../project";
import { ensureSentinel } from "../sentinel/ensure";
import { newTaskId } from "../state/ids";
import { profileChoice } from "../state/models";
import { ensureProjectRecord } from "../state/project-record";
import { BACKENDS, HARNESSES, KINDS, LISTED_HARNESSES, SCHEMA_VERSION, type Task } from "../state/schemas";
import { createTask, isLeaseAbandoned, withTaskOp } from "../state/tasks";
import { announceLaunch, reportLaunch } from "../soldiers/launch";
import { checkBackend, checkLaunchRefusal, checkSandbox } from "../soldiers/launch-checks";
import { soldierTerminal } from "../soldiers/terminal";
import { isoTime } from "../time";

/** CMD-DISPATCH-01's limit on the prompt, in UTF-8 bytes. */

type Kind = Task["kind"];
type Harness = NonNullable<Task["harness"]>;
type Backend = NonNullable<Task["backend"]>;

function pick<T extends string>(value: unknown, allowed: readonly T[], message: (x: string) => string): T | undefined {
  if (value === undefined) return undefined;
  const s = String(value);
  if (!allowed.includes(s as T)) throw new UsageError(message(s), "dispatch");
  return s as T;
}

/** The flags that need no project to be checked (64 before anything is touched). */
function parseDispatchFlags(args: Record<string, unknown>) {
  const positionals = (args._ as unknown[]).map(String);
  const prompt = positionals.join(" ");
  if (terminalText(prompt).trim() === "") throw new UsageError("missing prompt", "dispatch");
  return {
    prompt,
    kind: pick<Kind>(args.kind, KINDS, (x) => `unknown kind "${x}", expected mission or scout`),
    harness: pick<Harness>(args.harness, HARNESSES, (x) => `unknown harness "${x}", expected one of ${LISTED_HARNESSES.join(", ")}`),
    backend: pick<Backend>(args.backend, BACKENDS, (x) => `unknown backend "${x}", expected ${BACKENDS.join(" or ")}`),
    model: args.model === undefined ? undefined : String(args.model),
    effort: args.effort === undefined ? undefined : String(args.effort),
  };
}

/** `vx dispatch`. */
export const dispatchCommand = defineVxCommand({
  name: "dispatch",
  summary: "Dispatch a soldier (mission or scout) into an isolated camp",
  usage: [`dispatch <prompt...> [--kind mission|scout] [--harness ${LISTED_HARNESSES.join("|")}] [--backend ${BACKENDS.join("|")}] [--model <m>] [--effort <e>] [--profile <name>]`],
  args: {
    kind: { type: "string", valueHint: "mission|scout", description: "What the soldier delivers: commits (mission, default) or a report (scout)" },
    harness: { type: "string", valueHint: LISTED_HARNESSES.join("|"), description: "The agent program (default from .vexillum/config.json)" },
    backend: { type: "string", valueHint: BACKENDS.join("|"), description: "Where the soldier's terminal lives (default from .vexillum/config.json)" },
    model: { type: "string", valueHint: "m", description: "Model passed to the harness" },
    effort: { type: "string", valueHint: "e", description: "Reasoning effort passed to the harness" },
    profile: { type: "string", valueHint: "name", description: "Harness, model and effort from a profile of models.json (see 'vx models')" },
  },
  async run(args, deps) {
    const flags = parseDispatchFlags(args);
    if (flags.harness) checkModelEffort(flags.harness, flags.model, flags.effort);
    const project = await openProject(deps);
    // CMD-MODELS-01: the profile fills what no flag set, so the checks below cover its values too.
    const where = { root: project.root, top: project.paths.project };
    Object.assign(flags, profileChoice(deps, where, args.profile, flags, { useDefault: true, command: "dispatch" }));
    const harness = flags.harness ?? project.config.harness ?? DEFAULT_HARNESS;
    const backend = flags.backend ?? project.config.backend ?? DEFAULT_BACKEND;
    checkModelEffort(harness, flags.model, flags.effort);
    assertPromptSize(flags.prompt, "the prompt");
    const cleaned = controlNote(flags.prompt, "the prompt");
    if (cleaned) deps.stderr.write(cleaned);
    const base = campBase(await currentBranch(project.paths.project, deps.exec));
    if (!(await hasCommit(project.paths.project, deps.exec))) {
      throw new VxError(`${base} has no commit yet, and a soldier's camp is forked from it - commit something first, then dispatch`);
    }
    // The harness first: one that cannot run on this backend at all is the clearer refusal.
    checkLaunchRefusal(deps, harness, backend);
    const workspace = checkBackend(deps, backend);
    await checkSandbox(deps, project);
    // A camp is a worktree of the base's last commit: edits not committed stay behind. A status
    // git cannot give costs the warning, never the dispatch.
    if (!(await isClean(project.paths.project, deps.exec, { ignoreUntracked: true }).catch(() => true))) {
      deps.stderr.write(
        `vx: warning: ${project.paths.project} has uncommitted changes the soldier's camp will not have (it starts from ${base}'s last commit) - commit them first if the soldier needs them\n`,
      );
    }

    ensureSentinel(deps, project.root);
    ensureProjectRecord(project.paths);
    const commander = await noteCommander(deps, project.root, project.paths, { warnOtherProject: true });

    const id = newTaskId();
    // The task's operation lock spans the lease and the whole launch: a strike of it waits
    // instead of releasing a camp the launch is still filling, and a lease whose task file does
    // not exist yet is never taken for a dead dispatch's leftover.
    return withTaskOp(project.paths, id, async () => {
      const abandoned = (t: string) => isLeaseAbandoned(project.paths, t);
      const camp = await acquireCamp(project.paths, { project: project.paths.project, taskId: id, base, exec: deps.exec, abandoned });
      if (camp.skipped.length > 0) {
        const list = camp.skipped.map((s) => `${s.slot} (${s.reason})`).join(", ");
        deps.stderr.write(`vx: warning: passed over idle camp slot(s) ${list}\n`);
      }
      const now = isoTime(deps.clock.now());
      const task: Task = {
        id,
        schema_version: SCHEMA_VERSION,
        kind: flags.kind ?? "mission",
        prompt: flags.prompt,
        status: "pending",
        created_at: now,
        updated_at: now,
        camp_slot: camp.slot,
        camp_path: camp.path,
        camp_branch: camp.branch,
        camp_base: base,
        backend,
        harness,
        model: flags.model,
        effort: flags.effort,
        ...commander,
        ...backendFor({ backend }).intent({ id, prompt: flags.prompt }, workspace),
      };
      try {
        await createTask(project.paths, task);
      } catch (err) {
        // No task records the lease, so nothing could ever strike it: give the camp back.
        await releaseLease(project.paths, id).catch(() => undefined);
        throw err;
      }
      announceLaunch(deps, task);
      return reportLaunch(deps, await soldierTerminal(deps, project.paths, task, workspace).launch(task), true);
    });
  },
});

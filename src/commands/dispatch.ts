/**
 * `vx dispatch <prompt...>`: start a soldier in its own camp (CMD-DISPATCH-01..06). The flags,
 * profile, model and prompt are checked here; the dispatch itself is `soldiers/dispatch.ts`.
 */
import { DEFAULT_BACKEND } from "../backends/names";
import { defineVxCommand } from "../command";
import { UsageError } from "../errors";
import { DEFAULT_HARNESS } from "../harnesses";
import { checkModelEffort } from "../harnesses/model-effort";
import { assertPromptSize } from "../soldiers/prompt-text";
import { stdinOrWords, stdinText } from "./parse";
import { dispatchOn } from "../soldiers/dispatch-remote";
import { assertMachineName } from "../machines/registry";
import { controlNote, terminalText } from "../terminal-text";
import { openProject } from "../project";
import { profileChoice } from "../state/models";
import { BACKENDS, HARNESSES, KINDS, LISTED_HARNESSES, type Task } from "../state/schemas";
import { dispatchTask } from "../soldiers/dispatch";
import { reportLaunch } from "../soldiers/launch";

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
  if (!stdinOrWords(args.stdin, positionals, "dispatch") && terminalText(prompt).trim() === "") throw new UsageError("missing prompt", "dispatch");
  return {
    prompt,
    on: args.on === undefined ? undefined : assertMachineName(String(args.on), "dispatch"),
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
  usage: [
    `dispatch <prompt...> [--kind mission|scout] [--harness ${LISTED_HARNESSES.join("|")}] [--backend ${BACKENDS.join("|")}] [--model <m>] [--effort <e>] [--profile <name>] [--on <machine>]`,
    "dispatch --stdin [flags as above]",
  ],
  args: {
    kind: { type: "string", valueHint: "mission|scout", description: "What the soldier delivers: commits (mission, default) or a report (scout)" },
    harness: { type: "string", valueHint: LISTED_HARNESSES.join("|"), description: "The agent program (default from .vexillum/config.json)" },
    backend: { type: "string", valueHint: BACKENDS.join("|"), description: "Where the soldier's terminal lives (default from .vexillum/config.json)" },
    model: { type: "string", valueHint: "m", description: "Model passed to the harness" },
    effort: { type: "string", valueHint: "e", description: "Reasoning effort passed to the harness" },
    profile: { type: "string", valueHint: "name", description: "Harness, model and effort from a profile of models.json (see 'vx models')" },
    on: { type: "string", valueHint: "machine", description: "Run the soldier on this machine (see 'vx machine list')" },
    stdin: { type: "boolean", description: "Read the prompt from standard input, not from the words" },
  },
  async run(args, deps) {
    const { on, ...flags } = parseDispatchFlags(args);
    if (flags.harness) checkModelEffort(flags.harness, flags.model, flags.effort);
    if (args.stdin) flags.prompt = await stdinText(deps, "dispatch", "the prompt");
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
    if (on) return dispatchOn(deps, project, { ...flags, harness, backend }, on);
    return reportLaunch(deps, await dispatchTask(deps, project, { ...flags, harness, backend }), true);
  },
});

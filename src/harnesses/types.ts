/** What vx knows about one harness (HRN-01): every capability required, so a module missing one does not compile. */
import type { BackendName } from "../backends/names";
import type { Check } from "../check";
import type { Exec } from "../exec";
import type { Commander } from "../state/schemas";
import type { HarnessName } from "./names";
import type { UsageReader } from "./usage/records";

/** Args, env and files (outside the camp) that make a harness run `vx report`; `links` for Gemini CLI's private home. */
export type HookedLaunch = {
  args: string[];
  env: Record<string, string>;
  files: { path: string; content: string }[];
  links?: { path: string; target: string }[];
};

type HookPlace = { vx: string; hooksDir: string };

/** The camp, and the caller's exec and environment (the soldier's too). */
export type ContinueCtx = { camp: string; exec: Exec; env: Record<string, string | undefined> };

export type Delivery = { ok: true } | { ok: false; error: string };

/**
 * `hook`: its own hook runs `vx sentinel await`. `idle-prompt`: typed into its pane only while idle (CMDR-08).
 * `queue`: the harness's queue command (CMDR-09), falling back to the idle prompt after a spell of failures.
 */
export type Wake =
  | { kind: "hook" }
  | { kind: "idle-prompt" }
  | { kind: "queue"; send(run: { exec: Exec; env: Record<string, string | undefined>; cwd?: string; timeoutMs: number }, entry: Commander, text: string): Promise<Delivery> };

/** The helpers `vx init` and `vx upgrade --scaffold-only` give a commander's plan. */
export type CommanderPlan = {
  top: string;
  /** True on `vx upgrade --scaffold-only`. */
  refresh: boolean;
  /** A wake template vx owns: refreshed only while unedited. */
  wakeFile(path: string, content: string, why: string): void;
  /** A JSON file merged by `merge` (a problem, not a write, when it is invalid). */
  json(path: string, merge: (x: unknown) => { next: unknown }, why: string): void;
  note(text: string): void;
  exists(path: string): boolean;
};

/** CMDR-10: finding and reading a hook-less commander in a plain tmux pane, where no herdr names it or its state. */
export type TmuxCommanderRule = {
  /** An environment variable the harness sets on the commands it runs (its shell tool). */
  marker: string;
  /** A variable holding the harness's own pid, where it sets one (checked against `program`). */
  pidVar?: string;
  /** The harness's own process, by the basename of its first argv word. */
  program: RegExp;
  /** On screen while a turn runs. */
  busy: RegExp;
  /** What starts the input line, or each row of a box (one of these, where it changes with a mode). */
  mark: string | readonly string[];
  /** The rest of that line when it holds nothing the person typed (a placeholder, or nothing). */
  emptyInput: RegExp;
  /** Marked rows at the end of the input box that are not input (OpenCode's agent row); none when unset. */
  trailerRows?: number;
};

type CommanderSide = {
  readonly wake: Wake;
  /** True when the project holds this commander's wake files, looked after even when another harness commands. */
  installed(top: string): boolean;
  /** What init writes for it (called when it is the chosen commander or `installed`). */
  plan(p: CommanderPlan): void;
  /** Doctor's lines on its wake files (called when it is the chosen commander or `installed`). */
  fileChecks(top: string, cwd: string): Check[];
  /** Doctor's lines that run programs, only for the project's commander (Codex's sandbox). */
  liveChecks(run: { env: Record<string, string | undefined>; top: string; root: string; gitDir: () => Promise<string> }): Promise<Check[]>;
  /** AWT-01: the await's owner cannot be woken (print mode), so the await exits at once. */
  nonInteractive(env: Record<string, string | undefined>, ownerCommand?: string): boolean;
  /** AWT-12: the owner (AWT-06) starts a new await only after a model turn, so a day-long await ends with a re-arm wake. */
  rearmsByTurn(ownerCommand: string, env: Record<string, string | undefined>): boolean;
  /** CMDR-10; undefined when it is never woken that way (it has a hook). */
  readonly tmuxCommander: TmuxCommanderRule | undefined;
};

export interface Harness {
  readonly name: HarnessName;
  /** As people know it (doctor's lines). */
  readonly label: string;
  /** Its executable on PATH (doctor; the tmux launch runs it, herdr's `agent start` is given `name`). */
  readonly exe: string;
  /** The program a tmux pane runs before its arguments: `[exe]`, or vx itself (`self`) for the demo soldier. */
  program(self: readonly string[]): string[];
  /** HRD-04: the soldier's own arguments, with model and effort only when set. */
  soldierArgs(model?: string, effort?: string): string[];
  /** TMX-05: the state hooks configured from outside the camp (without vx's own VX_* variables). */
  stateHooks(place: HookPlace): HookedLaunch;
  /** Its screen once it takes input on tmux; `still`: a screen that stops changing (and is no dialog) counts. */
  readonly ready: RegExp | "still";
  /** A submitted prompt left in its box (Enter dropped): a tmux paste presses Enter again; undefined when never lost. */
  readonly unsent: RegExp | undefined;
  /** Its state hooks report the session's start, the first moment a prompt is safe: one sent earlier can vanish. A launch waits for it. */
  readonly startReport?: true;
  /** HRD-04/08: variables (no secrets) over the dispatcher's env on either terminal; on tmux also in its hooks' `env`. */
  readonly soldierEnv?: Readonly<Record<string, string>>;
  /** CMD-DISPATCH-01 / HRD-04: throws a UsageError for a model or effort this harness refuses. */
  checkModelEffort(model: string | undefined, effort: string | undefined): void;
  /** A refusal before a camp is leased (the harness would die in its pane, or not run on `backend`), else undefined. */
  launchRefusal(env: Record<string, string | undefined>, backend: BackendName): string | undefined;
  /** CMD-RESUME-01: args (before the soldier args) continuing its conversation in `ctx.camp`; undefined starts afresh; a failed lookup throws. */
  continueArgs(ctx: ContinueCtx): Promise<string[] | undefined>;
  /** TSK-13: what the soldier spent, read from the harness's own records (bounded, never throwing), or why it is unknown. */
  readonly usage: UsageReader;
  /** As a commander: its wake path, what init writes, what doctor checks. */
  readonly commander: CommanderSide;
}

/** One valibot schema per on-disk file; types come from the schemas, key order from their declarations. */
import * as v from "valibot";
import { BACKEND_NAMES } from "../backends/names";
import { COMMANDER_NAMES, HARNESS_NAMES, LISTED_HARNESS_NAMES } from "../harnesses/names";
import { MACHINE_NAME } from "./ids";

export const SCHEMA_VERSION = 1;

const Time = v.pipe(v.string(), v.isoTimestamp());
const Int = v.pipe(v.number(), v.integer());
const OptString = v.optional(v.string());

const TASK_STATUSES = ["pending", "running", "blocked", "done", "failed", "interrupted", "shipped", "unconfirmed"] as const;
export type TaskStatus = (typeof TASK_STATUSES)[number];

export const KINDS = ["mission", "scout"] as const;
export const HARNESSES = HARNESS_NAMES;
/** All but `vx demo`'s own. */
export const LISTED_HARNESSES = LISTED_HARNESS_NAMES;
export const BACKENDS = BACKEND_NAMES;
export const COMMANDERS = COMMANDER_NAMES;

const DecisionSchema = v.object({
  question: v.string(),
  options: v.optional(v.array(v.string())),
  asked_at: Time,
  answer: OptString,
  answered_at: v.optional(Time),
  kind: v.optional(v.picklist(["prose", "modal"])),
  dismissed: v.optional(v.boolean()),
});
export const DECISION_KEYS = ["question", "options", "asked_at", "answer", "answered_at", "kind", "dismissed"];

const AmendmentSchema = v.object({
  text: v.string(),
  at: Time,
  source: v.picklist(["vx prompt", "vx decide", "vx resume"]),
});

export const TaskSchema = v.object({
  id: v.pipe(v.string(), v.regex(/^[0-9a-f]{16}$/)),
  schema_version: v.optional(Int),
  kind: v.picklist(KINDS),
  prompt: v.string(),
  status: v.picklist(TASK_STATUSES),
  created_at: Time,
  updated_at: Time,
  camp_slot: v.optional(Int),
  camp_path: OptString,
  camp_branch: OptString,
  camp_base: OptString,
  output: OptString,
  backend: v.optional(v.picklist(BACKENDS)),
  herdr_workspace_id: OptString,
  herdr_tab_id: OptString,
  herdr_pane_id: OptString,
  herdr_agent_name: OptString,
  tmux_target: OptString,
  tmux_socket: OptString,
  tmux_session_id: OptString,
  tmux_pane_id: OptString,
  /** A backend's own keys; only it reads them. */
  backend_state: v.optional(v.record(v.string(), v.string())),
  harness: v.optional(v.picklist(HARNESSES)),
  model: OptString,
  effort: OptString,
  decision: v.optional(DecisionSchema),
  amendments: v.optional(v.array(AmendmentSchema)),
  agent_not_found_since: v.optional(Time),
  idle_unconfirmed_since: v.optional(Time),
  held_running_since: v.optional(Time),
  pause_seen_at: v.optional(Time),
  commander_project: OptString,
  commander_pane: OptString,
  redispatches: v.optional(Int),
  resumes: v.optional(Int),
  /** MCH-06: the machine the soldier runs on (this file then mirrors the task there), the project's clone there, the newest wake relayed (MCH-08). */
  machine: v.optional(v.pipe(v.string(), v.regex(MACHINE_NAME), v.notValue("local"))),
  remote_project: OptString,
  relayed_wake_at: v.optional(Time),
  /** CMD-LAND-04: the branch's commit before land's own rebase of it, kept only while that rebase runs (crash recovery). */
  land_rebase_from: OptString,
  /** CMD-LAND-02: when the mission landed, and the base's commit it landed as. */
  landed_at: v.optional(Time),
  landed_commit: OptString,
  /** CMD-STRIKE-03: when its camp was struck. */
  struck_at: v.optional(Time),
});
export type Task = v.InferOutput<typeof TaskSchema>;
export type Decision = v.InferOutput<typeof DecisionSchema>;
export type Amendment = v.InferOutput<typeof AmendmentSchema>;

/** Always written, even when empty or zero. */
export const TASK_REQUIRED_KEYS = ["id", "schema_version", "kind", "prompt", "status", "created_at", "updated_at"];

/** TMX-05, CMD-REPORT-02. */
export const SOLDIER_STATES = ["working", "idle", "blocked"] as const;
export const SoldierStateSchema = v.object({
  task_id: v.pipe(v.string(), v.regex(/^[0-9a-f]{16}$/)),
  state: v.picklist(SOLDIER_STATES),
  at: Time,
  source: OptString,
});
export type SoldierState = v.InferOutput<typeof SoldierStateSchema>;

export const SoldierWakeSchema = v.object({
  task_id: v.pipe(v.string(), v.regex(/^[0-9a-f]{16}$/)),
  kind: v.picklist(KINDS),
  old_status: v.picklist(TASK_STATUSES),
  new_status: v.picklist(TASK_STATUSES),
  detected_at: Time,
  report_path: OptString,
  origin: OptString,
  note: OptString,
  delivery_failing_since: v.optional(Time),
});
export type SoldierWake = v.InferOutput<typeof SoldierWakeSchema>;

export const ForumWakeSchema = v.object({
  session: v.string(),
  file: v.string(),
  count: Int,
  ended: v.boolean(),
  detected_at: Time,
});
export type ForumWake = v.InferOutput<typeof ForumWakeSchema>;

/** FOR-01: the forum wake one message owes (the journal a restart completes). */
export const ForumPendingSchema = v.object({
  session: v.string(),
  uid: v.string(),
  file: v.string(),
  ended: v.boolean(),
  detected_at: Time,
});
export type ForumPending = v.InferOutput<typeof ForumPendingSchema>;

/** FOR-01; `acked_at` absent, null or empty means unread. */
export const ForumMessageSchema = v.object({
  uid: v.string(),
  session: v.string(),
  file: v.string(),
  text: v.string(),
  received_at: Time,
  acked_at: v.optional(v.nullable(v.string())),
});
export type ForumMessage = v.InferOutput<typeof ForumMessageSchema>;

export const AwaiterSchema = v.object({
  pid: Int,
  owner_pid: Int,
  /** AWT-06: nearest first. */
  wrapper_pids: v.optional(v.array(Int)),
  project_path: v.string(),
  project_key: v.string(),
  herdr_pane_id: OptString,
  started_at: Time,
});
export type Awaiter = v.InferOutput<typeof AwaiterSchema>;

const BuildSchema = v.object({
  version: v.string(),
  executable: v.string(),
  resolved: v.string(),
  size: v.number(),
  mod_time_unix_nano: v.number(),
});
export type Build = v.InferOutput<typeof BuildSchema>;

export const SentinelInfoSchema = v.object({
  pid: Int,
  started_at: Time,
  build: BuildSchema,
  /** SEN-02; absent from older sentinels. */
  path: v.optional(v.string()),
});
export type SentinelInfo = v.InferOutput<typeof SentinelInfoSchema>;

export const SlotSchema = v.object({
  number: Int,
  branch: v.string(),
  leased_by: OptString,
});
export const PoolSchema = v.object({
  schema_version: v.optional(Int),
  slots: v.array(SlotSchema),
});
export type Pool = v.InferOutput<typeof PoolSchema>;
export type Slot = v.InferOutput<typeof SlotSchema>;

export const CommanderSchema = v.object({
  /** CMDR-03; absent for a commander registered from a plain tmux pane (CMDR-10). */
  herdr_pane_id: OptString,
  herdr_workspace_id: OptString,
  project_path: v.string(),
  registered_at: Time,
  /** CMDR-09. */
  codex_thread_id: OptString,
  codex_home: OptString,
  /** CMDR-10. */
  tmux_pane: OptString,
  tmux_socket: OptString,
  pid: v.optional(Int),
});
export type Commander = v.InferOutput<typeof CommanderSchema>;
export const CommandersSchema = v.object({
  schema_version: v.optional(Int),
  commanders: v.record(v.string(), CommanderSchema),
});
export type Commanders = v.InferOutput<typeof CommandersSchema>;

/** MCH-01: a machine this state root reaches over SSH. */
export const MachineSchema = v.object({
  destination: v.string(),
  added_at: Time,
  vx_path: v.string(),
  vx_version: v.string(),
  platform: v.string(),
});
export type Machine = v.InferOutput<typeof MachineSchema>;
export const MachinesSchema = v.object({
  schema_version: v.optional(Int),
  self_id: v.optional(v.pipe(v.string(), v.regex(/^[0-9a-f]{16}$/))),
  machines: v.record(v.pipe(v.string(), v.regex(MACHINE_NAME), v.notValue("local")), MachineSchema),
});

export const ProjectConfigSchema = v.object({
  version: Int,
  initialized_at: Time,
  vx_version: v.string(),
  commander: v.optional(v.picklist(COMMANDERS)),
  backend: v.optional(v.picklist(BACKENDS)),
  harness: v.optional(v.picklist(LISTED_HARNESSES)),
  /** WAK-14: checked where used, so a typo never stops other commands reading the config. */
  notify: v.optional(v.unknown()),
  block_file: OptString,
  block_lang: v.optional(v.picklist(["en", "es"])),
  block_hash: OptString,
  skill_hashes: v.optional(v.record(v.string(), v.string())),
  file_hashes: v.optional(v.record(v.string(), v.string())),
  /** STA-10. */
  camp_setup: v.optional(v.array(v.pipe(v.array(v.string()), v.minLength(1, "a camp_setup command must name a program")))),
  camp_setup_timeout: v.optional(v.pipe(v.number(), v.minValue(1, "camp_setup_timeout must be at least 1 (seconds)"))),
});
export type ProjectConfig = v.InferOutput<typeof ProjectConfigSchema>;

/** The project key is one-way. */
export const ProjectRecordSchema = v.object({
  schema_version: v.optional(Int),
  path: v.string(),
});

/** CMD-MODELS-01. Strict: a misspelt key would be dropped silently and the soldier started on another model. */
const ProfileFields = {
  harness: v.optional(v.picklist(LISTED_HARNESSES, `expected one of ${LISTED_HARNESSES.join(", ")}`)),
  model: v.optional(v.pipe(v.string("expected a string"), v.nonEmpty("must not be empty"))),
  effort: v.optional(v.pipe(v.string("expected a string"), v.nonEmpty("must not be empty"))),
  when: v.optional(v.string("expected a string")),
};
/** valibot's record and object take arrays too. */
const isPlainObject = (x: unknown) => typeof x === "object" && x !== null && !Array.isArray(x);
const ProfileSchema = v.pipe(v.custom<Record<string, unknown>>(isPlainObject, "expected an object"), v.strictObject(ProfileFields, `unknown field (known: ${Object.keys(ProfileFields).join(", ")})`));
export type Profile = v.InferOutput<typeof ProfileSchema>;

const RESERVED_NAMES = ["__proto__", "constructor", "prototype"];

function reservedName(o: Record<string, unknown>): string | undefined {
  return Object.keys(o).find((k) => RESERVED_NAMES.includes(k));
}

export const ModelsSchema = v.object({
  profiles: v.pipe(
    v.custom<Record<string, unknown>>(isPlainObject, "expected an object"),
    // valibot's record drops these silently (prototype pollution guard).
    v.check(
      (o) => reservedName(o) === undefined,
      (issue) => `the profile name "${reservedName(issue.input as Record<string, unknown>)}" is one JavaScript reserves, so vx cannot read it; rename that profile`,
    ),
    v.record(v.pipe(v.string(), v.nonEmpty("a profile name must not be empty")), ProfileSchema),
  ),
  default: v.optional(v.pipe(v.string("expected a string"), v.nonEmpty("must not be empty"))),
});
export type Models = v.InferOutput<typeof ModelsSchema>;

export function keysOf(schema: { entries: Record<string, unknown> }): string[] {
  return Object.keys(schema.entries);
}

/** FOR-07. */
export const ForumSessionSchema = v.object({
  session: v.string(),
  file: v.string(),
  project_path: v.string(),
  created_at: Time,
  ended_at: v.optional(v.nullable(v.string())),
});
export type ForumSession = v.InferOutput<typeof ForumSessionSchema>;

/** FOR-07. */
export const TranscriptLineSchema = v.object({
  uid: v.string(),
  from: v.picklist(["general", "commander"]),
  text: v.string(),
  at: Time,
});
export type TranscriptLine = v.InferOutput<typeof TranscriptLineSchema>;

/** FOR-05. */
export const ForumServerSchema = v.object({
  pid: Int,
  port: Int,
  token: v.string(),
  binary: BuildSchema,
  started_at: Time,
});
export type ForumServer = v.InferOutput<typeof ForumServerSchema>;

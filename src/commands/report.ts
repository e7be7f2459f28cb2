/**
 * `vx report working|idle|blocked`: a harness hook inside a soldier's camp records the soldier's
 * state (CMD-REPORT-01/02). It writes one state file and nothing else: no task edit, no wake, no
 * herdr or tmux call, no stdin read.
 */
import { dropStaleReport, statePath, warnTo, writeSoldierState } from "../state/soldier-state";
import { defineVxCommand } from "../command";
import { EXIT, UsageError, VxError } from "../errors";
import { errorMessage } from "../errors";
import { reportingTask } from "../soldiers/states";
import { SOLDIER_STATES, type SoldierState } from "../state/schemas";
import { HARNESSES } from "../state/schemas";
import { stateRoot } from "../state/paths";
import { isoTime } from "../time";

export const reportCommand = defineVxCommand({
  name: "report",
  summary: "Record a soldier's harness state from inside its camp (for harness hooks)",
  plumbing: true,
  usage: ["report working|idle|blocked"],
  args: {},
  async run(args, deps) {
    // Anything after the state is ignored: Codex's notify appends a JSON payload.
    const [raw] = (args._ as unknown[]).map(String);
    if (raw === undefined) throw new UsageError("missing state (working, idle or blocked)", "report");
    if (!SOLDIER_STATES.includes(raw as SoldierState["state"])) {
      throw new UsageError(`unknown state "${raw}", expected working, idle or blocked`, "report");
    }
    const { paths, taskId } = reportingTask(stateRoot(deps.env), deps.cwd, deps.env.VX_TASK_ID);
    const harness = deps.env.VX_HARNESS;
    const state: SoldierState = {
      task_id: taskId,
      state: raw as SoldierState["state"],
      at: isoTime(deps.clock.now()),
      source: harness && (HARNESSES as readonly string[]).includes(harness) ? harness : undefined,
    };
    try {
      writeSoldierState(paths, state, warnTo(deps.stderr));
    } catch (err) {
      // CMD-REPORT-03: one line for the hook, and never the stale report left to wedge the task.
      const why = `${statePath(paths, taskId)}: ${errorMessage(err)}`;
      const kept = dropStaleReport(paths, taskId);
      const then = kept
        ? `its earlier report could not be removed either (${kept}), so the sentinel goes by that one until a report is recorded`
        : "its earlier report is removed, so the sentinel judges the soldier from its pane; free space so reports are recorded again";
      throw new VxError(`report: could not record ${state.state} for task ${taskId} (${why}) - ${then}`);
    }
    return EXIT.ok;
  },
});

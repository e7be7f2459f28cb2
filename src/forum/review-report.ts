/**
 * A scout's report opened as a review page from its card (FOR-14's `review`): the session `vx forum <report>` opens,
 * through the same checks (FOR-07) and `openSession`; the page then goes to `/s/<session>`.
 */
import { errorMessage } from "../errors";
import { scoutReports } from "../lifecycle/observe";
import { loadTask } from "../state/tasks";
import { type ActionReply, taskOfRequest } from "./actions";
import { reviewableFile } from "./artifact";
import { openSession } from "./sessions";

export type ReviewReply = ActionReply | { status: 200; body: { ok: true; session: string; url: string } };

const refused = (status: number, error: string): ActionReply => ({ status, body: { ok: false, output: "", error } });

export async function openReport(root: string, body: Record<string, unknown>, now: number): Promise<ReviewReply> {
  const found = taskOfRequest(root, body);
  if ("status" in found) return found;
  const { paths, id } = found;
  let task: ReturnType<typeof loadTask>;
  try {
    task = loadTask(paths, id);
  } catch (err) {
    return refused(409, errorMessage(err));
  }
  if (!task) return refused(404, `project ${paths.project} has no task ${id}`);
  if (task.value.kind !== "scout") return refused(409, `task ${id} is a ${task.value.kind}: only a scout writes a report to review`);
  const report = scoutReports(paths, [task.value])[id];
  if (!report) return refused(404, `scout ${id} has written no report yet`);
  try {
    const real = reviewableFile(report, paths.project, paths.project, paths.reportsDir);
    const s = await openSession(root, paths.project, real, now);
    return { status: 200, body: { ok: true, session: s.session, url: `/s/${encodeURIComponent(s.session)}` } };
  } catch (err) {
    return refused(409, errorMessage(err));
  }
}

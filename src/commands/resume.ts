/**
 * `vx resume <task-id> [<text...>]`: an interrupted or unconfirmed soldier relaunched in its own
 * camp with its harness's continue flag, keeping its work (CMD-RESUME-01..03). The checks of the
 * arguments are here; the relaunch is `soldiers/resume.ts`.
 */
import { defineVxCommand } from "../command";
import { UsageError } from "../errors";
import { openProject } from "../project";
import { assertTaskRef } from "../state/ids";
import { resolveTaskRef, withTaskOp } from "../state/tasks";
import { reportLaunch } from "../soldiers/launch";
import { assertPromptSize } from "../soldiers/prompt-text";
import { resumeTask } from "../soldiers/resume";
import { controlNote, terminalText } from "../terminal-text";
import { stdinOrWords, stdinText } from "./parse";
import { mirroredTask, runThere } from "../soldiers/remote-task";

/** `vx resume`. */
export const resumeCommand = defineVxCommand({
  name: "resume",
  summary: "Resume an interrupted soldier in its camp, keeping its work",
  usage: ["resume <task-id> [<text...>]", "resume <task-id> --stdin"],
  args: { stdin: { type: "boolean", description: "Read the text to send from standard input, not from the words" } },
  async run(args, deps) {
    const [raw, ...words] = (args._ as unknown[]).map(String);
    if (raw === undefined) throw new UsageError("missing task id", "resume");
    const ref = assertTaskRef(raw, "resume");
    let text: string | undefined;
    if (stdinOrWords(args.stdin, words, "resume")) text = await stdinText(deps, "resume", "the resume text");
    else if (words.length > 0) {
      text = words.join(" ");
      if (terminalText(text).trim() === "") throw new UsageError("the resume text is empty - leave it out to send the default", "resume");
      assertPromptSize(text, "the resume text");
      const cleaned = controlNote(text, "the resume text");
      if (cleaned) deps.stderr.write(cleaned);
    }
    const project = await openProject(deps);
    const id = resolveTaskRef(project.paths, ref, "resume");
    const away = mirroredTask(project.paths, id);
    if (away) return withTaskOp(project.paths, id, () => runThere(deps, project.paths, away, ["resume", id, ...(text === undefined ? [] : ["--stdin"])], text));
    return reportLaunch(deps, await withTaskOp(project.paths, id, () => resumeTask(deps, project, id, text)));
  },
});

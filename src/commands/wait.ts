/** `vx wait <task-id>`: wait for one soldier to settle and report how it ended (WAIT-01..05). */
import { defineVxCommand } from "../command";
import { waitForTask, parseWaitOptions } from "../soldiers/wait";
import { TASK_ID_ARG } from "./parse";

// citty keeps a repeated string flag as an array; the last value wins, as with most CLIs.
function last(value: unknown): string | undefined {
  const v = Array.isArray(value) ? value[value.length - 1] : value;
  return v === undefined ? undefined : String(v);
}

export const waitCommand = defineVxCommand({
  name: "wait",
  summary: "Wait for one soldier to settle and report how it ended (read-only)",
  usage: ["wait <task-id> [--poll-interval <s>] [--max-wait <s>] [--log-file <path>] [--pane-tail-lines <n>]"],
  args: {
    ...TASK_ID_ARG,
    "poll-interval": { type: "string", valueHint: "s", description: "Seconds between checks of the task file (default 5)" },
    "max-wait": { type: "string", valueHint: "s", description: "Give up after this many seconds, exit 124 (default 7200)" },
    "log-file": { type: "string", valueHint: "path", description: "Also append every event line to this file" },
    "pane-tail-lines": { type: "string", valueHint: "n", description: "Pane lines to print at the end (default 80, 0 disables)" },
  },
  async run(args, deps) {
    const opts = parseWaitOptions(
      (args._ as string[]).map(String),
      {
        pollInterval: last(args["poll-interval"]),
        maxWait: last(args["max-wait"]),
        logFile: last(args["log-file"]),
        paneTailLines: last(args["pane-tail-lines"]),
      },
      deps,
    );
    return waitForTask(deps, opts);
  },
});

// consola's prompts and doctor's colours, only when every stream is a terminal and NO_COLOR is unset (consola prompts on stdout,
// data elsewhere); imported lazily so the Stop-hook drain and the sentinel never load it.
import type { Env } from "../state/paths";

/** Questions asked through consola's prompts. A cancelled prompt (Ctrl-C) answers undefined. */
export type Prompter = {
  confirm(question: string): Promise<boolean | undefined>;
  select<T extends string>(question: string, options: readonly T[], initial: T): Promise<T | undefined>;
};

/** True when people read every stream and asked for no colour. */
export function fancyTerminal(env: Env, fds: readonly number[] = [0, 1, 2]): boolean {
  if (env.NO_COLOR !== undefined) return false;
  // Required here, not imported: node:tty is not worth loading on every command's start-up.
  const { isatty } = require("node:tty") as typeof import("node:tty");
  return fds.every((fd) => isatty(fd));
}

export const consolaPrompter: Prompter = {
  async confirm(question) {
    const { consola } = await import("consola");
    const a = await consola.prompt(question, { type: "confirm", initial: true, cancel: "symbol" });
    return typeof a === "boolean" ? a : undefined;
  },
  async select(question, options, initial) {
    const { consola } = await import("consola");
    const a = await consola.prompt(question, { type: "select", options: [...options], initial, cancel: "symbol" });
    return typeof a === "string" && (options as readonly string[]).includes(a) ? (a as (typeof options)[number]) : undefined;
  },
};

/** Doctor's report with colour and icons: the same lines, each status drawn as consola draws it. */
export async function colourReport(text: string): Promise<string> {
  const { colors } = await import("consola/utils");
  const mark: Record<string, string> = {
    "[ok]": colors.green("✔ ok"),
    "[warn]": colors.yellow("⚠ warn"),
    "[missing]": colors.red("✖ missing"),
    "[optional]": colors.dim("○ optional"),
  };
  return text
    .split("\n")
    .map((line) => {
      const m = /^\[(ok|warn|missing|optional)\]/.exec(line);
      if (m) return `${mark[m[0]]}${line.slice(m[0].length)}`;
      if (line.startsWith("Environment ready")) return colors.green(colors.bold(line));
      if (line.startsWith("Environment not ready")) return colors.red(colors.bold(line));
      return line;
    })
    .join("\n");
}

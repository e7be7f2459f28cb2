// `vx demo`'s narration on stderr (CMD-DEMO-02), in colour only on a terminal without NO_COLOR; each line also goes to the commander's log.
import { appendFileSync } from "node:fs";
import type { Deps } from "../deps";
import { fancyTerminal } from "../ui/terminal";

type Paint = { title(s: string): string; cmd(s: string): string; dim(s: string): string };
const PLAIN: Paint = { title: (s) => s, cmd: (s) => s, dim: (s) => s };

export type Narrator = {
  title(text: string): void;
  say(text: string): void;
  cmd(argv: readonly string[]): void;
  out(text: string): void;
  /** Where the lines are copied (set once the log exists). */
  logTo(file: string): void;
};

/** Quotes a word for display only (never run by a shell). */
function shown(word: string): string {
  return /^[\w./=:@%+-]+$/.test(word) ? word : `"${word.replaceAll("\\", "\\\\").replaceAll('"', '\\"').replaceAll("\n", "\\n")}"`;
}

export async function narrator(deps: Deps): Promise<Narrator> {
  let paint = PLAIN;
  if (fancyTerminal(deps.env, [2])) {
    const { colors } = await import("consola/utils");
    paint = { title: (s) => colors.bold(colors.cyan(s)), cmd: (s) => colors.green(s), dim: (s) => colors.dim(s) };
  }
  let log: string | undefined;
  const emit = (plain: string, drawn: string) => {
    deps.stderr.write(`${drawn}\n`);
    if (log) {
      try {
        appendFileSync(log, `${plain}\n`);
      } catch {
        log = undefined; // the log is a nicety: a removed temp dir must not end the demo
      }
    }
  };
  return {
    title: (text) => emit(`\n== ${text}`, `\n${paint.title(`== ${text}`)}`),
    say: (text) => emit(text, text),
    cmd: (argv) => {
      const line = `$ vx ${argv.map(shown).join(" ")}`;
      emit(line, paint.cmd(line));
    },
    out: (text) => {
      for (const line of text.trimEnd().split("\n")) emit(`    ${line}`, paint.dim(`    ${line}`));
    },
    logTo: (file) => {
      log = file;
    },
  };
}

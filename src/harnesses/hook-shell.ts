/** Quoting shared by the harnesses' state hooks: the shell command a hook runs, and TOML strings. */

export type ReportState = "working" | "idle" | "blocked";

/** POSIX shell single-quoting: `text` as exactly one word, whatever it holds. */
export function shellQuote(text: string): string {
  return `'${text.replaceAll("'", `'\\''`)}'`;
}

/** A TOML basic string (JSON's escapes are TOML's, except that TOML also forbids a raw DEL). */
export function tomlString(text: string): string {
  return JSON.stringify(text).replaceAll("\u007f", "\\u007F");
}

/** The shell command a hook runs: no text but the quoted vx path and fixed words. */
export function reportCommand(vx: string, state: ReportState): string {
  return `${shellQuote(vx)} report ${state}`;
}

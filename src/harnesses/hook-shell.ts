export type ReportState = "working" | "idle" | "blocked";

/** POSIX single-quoting: exactly one word, whatever `text` holds. */
export function shellQuote(text: string): string {
  return `'${text.replaceAll("'", `'\\''`)}'`;
}

/** JSON's escapes are TOML's, but TOML also forbids a raw DEL. */
export function tomlString(text: string): string {
  return JSON.stringify(text).replaceAll("\u007f", "\\u007F");
}

/** No text but the quoted vx path and fixed words. */
export function reportCommand(vx: string, state: ReportState): string {
  return `${shellQuote(vx)} report ${state}`;
}

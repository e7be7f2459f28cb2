/**
 * The programs vx writes into projects (the wake and state-hook files that run inside Pi and
 * OpenCode) are real modules under programs/, so the type checker reads them. Bun imports each one
 * as text (`with { type: "text" }`) and the compiled binary embeds that text. vx writes a program's
 * text with two changes: its import of a shared part (`from "./<part>.ts"`, on one line) becomes
 * the part's text below the part's cut line, and each `__NAME__` stand-in becomes one of vx's own
 * values (a duration, an exit code, a path), which the part declares for the checker.
 */

/** The line in a shared part after which its written text starts. */
const CUT = "\n// ---- vx writes what follows ----\n";

/**
 * The text of a `with { type: "text" }` import, taken as a namespace import: the checker knows no
 * import attributes and types it as the module itself, which may have no default export.
 */
export function textOf(imported: object): string {
  const text = (imported as { default?: unknown }).default;
  if (typeof text !== "string") throw new Error("a program was imported as a module, not as text");
  return text;
}

/** `program` with its one-line import of `./<name>.ts` replaced by the written part of `part`. */
export function splice(program: string, name: string, part: string): string {
  const cut = part.indexOf(CUT);
  if (cut < 0) throw new Error(`programs/${name}.ts has no cut line`);
  const line = new RegExp(`^import \\{[^}\\n]*\\} from "\\./${name}\\.ts";.*\\n`, "gm");
  const found = program.match(line) ?? [];
  if (found.length !== 1) throw new Error(`a program imports programs/${name}.ts ${found.length} times, not once`);
  // The part's own imports above the cut are not written, so the program must carry them.
  for (const imp of part.slice(0, cut).match(/^import .*\n/gm) ?? []) {
    if (!program.includes(imp)) throw new Error(`a program importing programs/${name}.ts lacks its ${imp.trim()}`);
  }
  const body = part.slice(cut + CUT.length);
  return program.replace(line, () => body);
}

/** `text` with each `__NAME__` replaced by `values.NAME`: every value used, no stand-in left. */
export function fill(text: string, values: Record<string, string | number>): string {
  const used = new Set<string>();
  const out = text.replace(/__([A-Z][A-Z0-9_]*)__/g, (_all, name: string) => {
    const value = values[name];
    if (value === undefined) throw new Error(`a program names __${name}__, which vx does not fill`);
    used.add(name);
    return String(value);
  });
  const unused = Object.keys(values).filter((n) => !used.has(n));
  if (unused.length > 0) throw new Error(`a program never names ${unused.map((n) => `__${n}__`).join(", ")}`);
  return out;
}

/** Programs under programs/ are imported as text; written, a shared part's import becomes its text and `__NAME__`s vx's values. */
const CUT = "\n// ---- vx writes what follows ----\n";

/** A namespace import: the checker knows no import attributes and types a text import as the module itself. */
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

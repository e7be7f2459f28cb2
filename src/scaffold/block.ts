// The commander block (SCF-03/SCF-04, DOC-08) and CLAUDE.md's `@AGENTS.md` import. The body's hash reads CRLF as LF, so an
// editor converting line endings does not make an untouched block look hand-edited.

import { BLOCK_BODY_EN, BLOCK_BODY_ES, PREVIOUS_BODY_HASHES } from "./block-text";

export type BlockLang = "en" | "es";

type BlockState = {
  state: "absent" | "current" | "stale" | "drifted" | "malformed";
  lang?: BlockLang;
};

/** Thrown by upsertBlock on a malformed block, which only repairBlock may rewrite (SCF-08). */
export class MalformedBlockError extends Error {
  constructor(message = "the vexillum block has unbalanced or duplicate markers") {
    super(message);
    this.name = "MalformedBlockError";
  }
}

const BODIES: Record<BlockLang, string> = { en: BLOCK_BODY_EN, es: BLOCK_BODY_ES };
const END_MARKER = "<!-- END VEXILLUM -->";

/** First 8 lowercase hex of SHA-256 of the body, CRLF read as LF. */
export function bodyHash(body: string): string {
  return new Bun.CryptoHasher("sha256").update(body.replace(/\r\n/g, "\n")).digest("hex").slice(0, 8);
}

/** The current block for `lang`, markers included, LF line ends, ending with a newline. */
export function renderBlock(lang: BlockLang): string {
  const body = BODIES[lang];
  return `<!-- BEGIN VEXILLUM v:1 hash:${bodyHash(body)} -->\n${body}${END_MARKER}\n`;
}

/**
 * SCF-03: current (hashes match a current template), stale (match, an older template), drifted (body edited), malformed (unpaired,
 * duplicate or misordered markers, or an unreadable BEGIN). `lang`: the template's, else the body's (stale: English).
 */
export function blockState(fileText: string): BlockState {
  const scan = scanMarkers(fileText);
  if (scan.kind === "absent") return { state: "absent" };
  if (scan.kind === "malformed") return { state: "malformed" };
  const body = fileText.slice(scan.begin.next, scan.end.start);
  const hash = bodyHash(body);
  if (hash !== scan.hash) {
    const lang = proseLang(body);
    return lang ? { state: "drifted", lang } : { state: "drifted" };
  }
  for (const lang of ["en", "es"] as const) {
    if (hash === bodyHash(BODIES[lang])) return { state: "current", lang };
  }
  return { state: "stale", lang: PREVIOUS_BODY_HASHES[hash] ?? proseLang(body) ?? "en" };
}

/** In place of a well-formed block (callers decide on a drifted one), else appended; every byte outside kept, in the file's line ending. */
export function upsertBlock(fileText: string, lang: BlockLang): string {
  const scan = scanMarkers(fileText);
  if (scan.kind === "malformed") throw new MalformedBlockError();
  const eol = dominantEol(fileText);
  const block = withEol(renderBlock(lang), eol);
  if (scan.kind === "absent") return appendParagraph(fileText, block, eol);
  const inner = block.slice(0, block.length - eol.length);
  return fileText.slice(0, scan.begin.start) + inner + fileText.slice(scan.end.contentEnd);
}

/** The block as it is in the file, marker lines included; undefined unless it is well-formed. */
export function blockText(fileText: string): string | undefined {
  const scan = scanMarkers(fileText);
  return scan.kind === "block" ? fileText.slice(scan.begin.start, scan.end.next) : undefined;
}

/** SCF-08, after consent and a backup: a BEGIN then END goes with its content, any other marker alone (where its block ended is unknowable). */
export function repairBlock(fileText: string, lang: BlockLang): string {
  const markers = markerLines(fileText);
  if (markers.length === 0) return upsertBlock(fileText, lang);
  const cuts: Array<[number, number]> = [];
  for (let i = 0; i < markers.length; i++) {
    const m = markers[i];
    const following = markers[i + 1];
    if (m.type === "begin" && following?.type === "end") {
      cuts.push([m.start, following.next]);
      i++;
    } else {
      cuts.push([m.start, m.next]);
    }
  }
  const eol = dominantEol(fileText);
  let out = "";
  let from = 0;
  cuts.forEach(([start, next], i) => {
    out += fileText.slice(from, start);
    if (i === 0) out += withEol(renderBlock(lang), eol);
    from = next;
  });
  return out + fileText.slice(from);
}

/** A block already there keeps its language (so `init --lang es` then `upgrade` stays Spanish); else the prose decides, if there is enough. */
export function detectLang(fileText: string): BlockLang | undefined {
  const scan = scanMarkers(fileText);
  if (scan.kind === "block") {
    const body = fileText.slice(scan.begin.next, scan.end.start);
    const own = templateLang(bodyHash(body)) ?? proseLang(body);
    if (own) return own;
  }
  return proseLang(stripForDetection(fileText));
}

/** Whether CLAUDE.md imports AGENTS.md (`@AGENTS.md` or `@./AGENTS.md`, outside code). */
export function hasClaudeImport(claudeMdText: string): boolean {
  return withoutCode(claudeMdText)
    .split("\n")
    .some((line) => /(?:^|\s)@(?:\.\/)?AGENTS\.md(?=$|\s|[.,;:!?)\]](?:\s|$))/.test(line));
}

/** Adds an `@AGENTS.md` line after one blank line, unless the file already imports it. */
export function addClaudeImport(claudeMdText: string): string {
  if (hasClaudeImport(claudeMdText)) return claudeMdText;
  const eol = dominantEol(claudeMdText);
  return appendParagraph(claudeMdText, `@AGENTS.md${eol}`, eol);
}

function templateLang(hash: string): BlockLang | undefined {
  for (const lang of ["en", "es"] as const) {
    if (hash === bodyHash(BODIES[lang])) return lang;
  }
  return PREVIOUS_BODY_HASHES[hash];
}

function proseLang(text: string): BlockLang | undefined {
  const prose = withoutCode(text)
    .replace(/<!--[\s\S]*?-->/g, " ")
    .replace(/\]\([^)]*\)/g, "] ")
    .replace(/\b(?:https?|ftp):\/\/\S+/g, " ");
  const words = prose.toLowerCase().match(/\p{L}+/gu) ?? [];
  if (words.length < 20) return undefined;
  let es = (prose.match(/[áéíóúñü¿¡]/giu) ?? []).length;
  let en = 0;
  for (const w of words) {
    if (SPANISH_WORDS.has(w)) es++;
    else if (ENGLISH_WORDS.has(w)) en++;
  }
  if (es + en < 4) return undefined;
  return es >= 2 * en ? "es" : "en";
}

type Marker = {
  type: "begin" | "end";
  /** Offset of the line's first character. */
  start: number;
  /** Offset just past the line's content (before its `\r\n` or `\n`). */
  contentEnd: number;
  /** Offset of the next line. */
  next: number;
  /** Marker hash for a readable v:1 BEGIN line. */
  hash?: string;
};

type Scan = { kind: "absent" } | { kind: "malformed" } | { kind: "block"; begin: Marker; end: Marker; hash: string };

const BEGIN_ANY = /^<!--\s*BEGIN\s+VEXILLUM\b.*-->$/;
const BEGIN_V1 = /^<!-- BEGIN VEXILLUM v:1 hash:([0-9a-fA-F]{8}) -->$/;
const END_ANY = /^<!--\s*END\s+VEXILLUM\s*-->$/;

function markerLines(text: string): Marker[] {
  const markers: Marker[] = [];
  let start = 0;
  while (start < text.length) {
    const nl = text.indexOf("\n", start);
    const next = nl === -1 ? text.length : nl + 1;
    let contentEnd = nl === -1 ? text.length : nl;
    if (contentEnd > start && text[contentEnd - 1] === "\r") contentEnd--;
    const line = text.slice(start, contentEnd).trim();
    if (BEGIN_ANY.test(line)) {
      const hash = BEGIN_V1.exec(line)?.[1]?.toLowerCase();
      markers.push({ type: "begin", start, contentEnd, next, hash });
    } else if (END_ANY.test(line)) {
      markers.push({ type: "end", start, contentEnd, next });
    }
    start = next;
  }
  return markers;
}

function scanMarkers(text: string): Scan {
  const markers = markerLines(text);
  if (markers.length === 0) return { kind: "absent" };
  const [begin, end] = markers;
  if (markers.length !== 2 || begin.type !== "begin" || end?.type !== "end" || !begin.hash) {
    return { kind: "malformed" };
  }
  return { kind: "block", begin, end, hash: begin.hash };
}

function dominantEol(text: string): "\n" | "\r\n" {
  const crlf = (text.match(/\r\n/g) ?? []).length;
  const all = (text.match(/\n/g) ?? []).length;
  return crlf > all - crlf ? "\r\n" : "\n";
}

function withEol(text: string, eol: "\n" | "\r\n"): string {
  return eol === "\n" ? text : text.replace(/\n/g, "\r\n");
}

// One blank line before the paragraph, adding only the missing line breaks.
function appendParagraph(text: string, paragraph: string, eol: string): string {
  if (text.length === 0) return paragraph;
  const trailing = (/(?:\r?\n)*$/.exec(text)?.[0].match(/\n/g) ?? []).length;
  return text + eol.repeat(Math.max(0, 2 - trailing)) + paragraph;
}

function withoutCode(text: string): string {
  const out: string[] = [];
  let fence: string | undefined;
  for (const line of text.replace(/\r\n/g, "\n").split("\n")) {
    const opener = /^\s*(`{3,}|~{3,})/.exec(line)?.[1];
    if (fence) {
      if (opener && opener[0] === fence[0] && opener.length >= fence.length) fence = undefined;
      continue;
    }
    if (opener) {
      fence = opener;
      continue;
    }
    out.push(line.replace(/`[^`]*`/g, " "));
  }
  return out.join("\n");
}

function stripForDetection(text: string): string {
  const scan = scanMarkers(text);
  let rest = text;
  if (scan.kind === "block") {
    rest = text.slice(0, scan.begin.start) + text.slice(scan.end.next);
  } else if (scan.kind === "malformed") {
    rest = markerLines(text)
      .reverse()
      .reduce((acc, m) => acc.slice(0, m.start) + acc.slice(m.next), text);
  }
  return rest;
}

// Function words only, none shared by both languages (`a`, `no`), so a few borrowed names cannot tip the balance.
const SPANISH_WORDS = new Set(
  (
    "el la los las del al lo que y en un una unos unas por para con es son se su sus como más " +
    "mas pero este esta estos estas ese esa eso esto muy sin sobre también hasta hay donde desde " +
    "todo todos toda todas cuando porque qué cómo si sí ya le les nos ni o está están ser hacer " +
    "tiene tienen puede cada entre después antes siempre nunca solo sólo otro otra cual cuál hace " +
    "hacé usá corré tenés sos vos usted ustedes dónde aquí acá allí luego aunque mientras"
  ).split(" "),
);
const ENGLISH_WORDS = new Set(
  (
    "the and of to in is it that for on with as this be are by or from at an not you your we " +
    "our they them have has was were will can should must when which what if do does all any " +
    "each into than then there these those its use run before after about how only also but " +
    "would could been being their who where while"
  ).split(" "),
);

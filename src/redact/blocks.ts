/** Private key blocks (RED-03), PEM, PGP, SSH2 and PuTTY, plus a body whose BEGIN fell outside the capture; each becomes one line. */

const BEGIN_RE = /-{4,5} ?BEGIN.*?PRIVATE KEY(?: BLOCK)? ?-{4,5}/;
const END_RE = /-{4,5} ?END.*?PRIVATE KEY(?: BLOCK)? ?-{4,5}/;
const PUTTY_START_RE = /^[\s│┃|⎿>]*PuTTY-User-Key-File-\d+:/;
const PUTTY_PRIVATE_RE = /^[\s│┃|⎿>]*Private-Lines:\s*\d+/;
const PUTTY_END_RE = /^[\s│┃|⎿>]*Private-(?:MAC|Hash):/;
// Allowing a TUI's frame around tool output. The last before END may be short, or a PGP checksum.
const LONG_BODY_RE = /^[\s│┃|⎿>]*[A-Za-z0-9+/]{16,}={0,2}[\s│┃|]*$/;
const SHORT_BODY_RE = /^[\s│┃|⎿>]*(?:[A-Za-z0-9+/]+={0,2}|=[A-Za-z0-9+/]{4})[\s│┃|]*$/;
const ARMOUR_HEADER_RE = /^[\s│┃|⎿>]*(?:Proc-Type|DEK-Info|Version|Comment|Hash|Charset):\s/;

type BlockScan = { end: number } | { skipTo: number };

function endsKey(line: string): boolean {
  return (line.includes("END") && line.includes("PRIVATE KEY") && END_RE.test(line)) || (line.includes("Private-") && PUTTY_END_RE.test(line));
}

/** `bodyScan` false when an earlier scan already passed this line, so a long base64 run is read once. */
export function keyBlockAt(lines: readonly string[], i: number, bodyScan: boolean): BlockScan | undefined {
  const line = lines[i];
  const begin = line.includes("BEGIN") && line.includes("PRIVATE KEY") ? BEGIN_RE.exec(line) : null;
  if (begin) {
    // A one-line block (armour pasted with literal `\n`s) ends on its own BEGIN line.
    if (endsKey(line.slice(begin.index + begin[0].length))) return { end: i };
    return { end: scanTo(lines, i + 1, endsKey) };
  }
  if ((line.includes("PuTTY-") || line.includes("Private-Lines")) && (PUTTY_START_RE.test(line) || PUTTY_PRIVATE_RE.test(line))) {
    return { end: scanTo(lines, i + 1, (l) => PUTTY_END_RE.test(l)) };
  }
  // A keyless body starts on a base64 line; armour headers above it are not secret.
  if (!bodyScan || line.length < 16 || !LONG_BODY_RE.test(line)) return undefined;
  let j = i + 1;
  while (j < lines.length && (LONG_BODY_RE.test(lines[j]) || ARMOUR_HEADER_RE.test(lines[j]) || lines[j].trim() === "")) j++;
  if (j < lines.length && endsKey(lines[j])) return { end: j };
  if (j + 1 < lines.length && SHORT_BODY_RE.test(lines[j]) && endsKey(lines[j + 1])) return { end: j + 1 };
  return { skipTo: j };
}

/** The last line when none stops. */
function scanTo(lines: readonly string[], from: number, stop: (line: string) => boolean): number {
  for (let j = from; j < lines.length; j++) if (stop(lines[j])) return j;
  return lines.length - 1;
}

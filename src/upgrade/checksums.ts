/**
 * Reading a release's checksums.txt. The installer script (scripts/install-release.sh) reads it
 * by the same rules, written out in both places; test/release-kit.ts's CHECKSUM_CASES holds the
 * inputs both are tested against. The rules:
 * - the text is split into lines at LF, and one CR ending a line is dropped (CRLF is accepted);
 * - an entry is a line of 64 hex digits, one space, then a space (text mode) or `*` (binary mode),
 *   then the asset's name, exactly, to the end of the line; any other line is not an entry;
 * - the hex is compared case-insensitively (upper-case hex is accepted);
 * - the asset must have exactly one entry: none is refused, and so is more than one, even when
 *   they agree, since a list that names an asset twice was not written by the release.
 */

type ChecksumLookup = { hex: string } | { problem: "missing" | "duplicate" };

const ENTRY = /^([0-9A-Fa-f]{64}) [ *](.*)$/;

export function checksumFor(text: string, asset: string): ChecksumLookup {
  const found: string[] = [];
  for (const raw of text.split("\n")) {
    const m = ENTRY.exec(raw.endsWith("\r") ? raw.slice(0, -1) : raw);
    if (m && m[2] === asset) found.push((m[1] as string).toLowerCase());
  }
  if (found.length === 0) return { problem: "missing" };
  if (found.length > 1) return { problem: "duplicate" };
  return { hex: found[0] as string };
}

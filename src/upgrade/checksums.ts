// checksums.txt, read by the same rules as scripts/install-release.sh (both tested on test/release-kit.ts's CHECKSUM_CASES).
// An asset needs exactly one entry, even when two agree: a list naming it twice was not written by the release.

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

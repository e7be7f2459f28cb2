/** HRD-01: which herdr versions vx supports, read from `herdr --version`. */

export type HerdrVersion = { version: string; major: number; minor: number; patch: number; supported: boolean };

/** Parses `herdr <x.y.z>[-<channel>.<build>]`; undefined when the text is not a version line. */
export function parseHerdrVersion(text: string): HerdrVersion | undefined {
  const m = /^herdr\s+(\d+)\.(\d+)\.(\d+)(?:-\S*)?\s*$/m.exec(text.trim());
  if (!m) return undefined;
  const [major, minor, patch] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const version = `${major}.${minor}.${patch}`;
  const supported = major === 0 && ((minor === 8 && patch >= 2) || minor === 9);
  return { version, major, minor, patch, supported };
}

/** HRD-01: which herdr versions vx supports, read from `herdr --version`. */

/** The herdr vx's tests run for real (the e2e and compat suites); 0.9.x is supported as read from herdr's source. */
export const HERDR_PROVEN = "0.8.2";

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

/** Doctor's word on a version: what it was proven against, and what was only read. */
export function herdrVersionNote(v: HerdrVersion): string {
  if (!v.supported) {
    return `${v.version} is outside 0.8.2-0.9.x - vx is tested against the real herdr ${HERDR_PROVEN} (0.9.x read from herdr's source, not run), this version may behave differently`;
  }
  if (v.version === HERDR_PROVEN) return `${v.version} (the version vx's tests run)`;
  if (v.minor === 9) return `${v.version} (supported as read from herdr's source; vx's tests run the real ${HERDR_PROVEN})`;
  return `${v.version} (vx's tests run the real ${HERDR_PROVEN})`;
}

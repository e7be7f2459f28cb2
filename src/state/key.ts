// The project key, with no Node module: the drain's fast path (fast-drain.ts) loads this and nothing of paths.ts.

/** `path.basename` of a POSIX path. */
function baseName(path: string): string {
  const trimmed = path.replace(/\/+$/, "");
  return trimmed.slice(trimmed.lastIndexOf("/") + 1);
}

/** Of an absolute, symlink-resolved path. The one-shot hash: a hasher object costs the drain a millisecond more. */
export function projectKey(projectPath: string): string {
  const hash = Bun.CryptoHasher.hash("sha256", projectPath, "hex").slice(0, 8);
  return `${baseName(projectPath)}-${hash}`;
}

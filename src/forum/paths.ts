/** Where the forum keeps its files (FOR-05, FOR-07). */
import { basename, join } from "node:path";

export type ForumPaths = ReturnType<typeof forumPaths>;

export function forumPaths(root: string) {
  const dir = join(root, "forum");
  return {
    root,
    dir,
    lock: join(dir, "server.lock"),
    info: join(dir, "server.json"),
    log: join(dir, "server.log"),
    lastPort: join(dir, "last-port"),
    /** The access token, kept across restarts so an open page's key stays good (FOR-06). */
    token: join(dir, "access-token"),
    /** A token once set as a cookie: browsers may send it to any port, so it is never used again. */
    cookieToken: join(dir, "token"),
    /** One-time login links, by the sha256 of their code (FOR-06). */
    links: join(dir, "links"),
    /** FOR-06. */
    openers: join(dir, "open"),
    sessionsDir: join(root, "forums"),
  };
}

type SessionPaths = { dir: string; info: string; transcript: string; lock: string };

export function sessionPaths(root: string, session: string): SessionPaths {
  const dir = join(root, "forums", session);
  return { dir, info: join(dir, "session.json"), transcript: join(dir, "transcript.jsonl"), lock: join(dir, ".lock") };
}

/** FOR-07: always a safe base name and URL path segment. */
export function sessionKey(realPath: string): string {
  const hash = new Bun.CryptoHasher("sha256").update(realPath).digest("hex").slice(0, 8);
  const name =
    basename(realPath)
      .replace(/[^A-Za-z0-9._-]/g, "_")
      .slice(0, 80) || "artifact";
  return `${name}-${hash}`;
}

/** As the HTTP API accepts it (sessionKey's, or the board's `general`). */
export function isSessionKey(x: string): boolean {
  return /^[A-Za-z0-9._-]{1,100}$/.test(x) && x !== "." && x !== "..";
}

/**
 * The forum's one-time codes (FOR-06). A link: vx writes `forum/links/<sha256 of code>.json`
 * (0600) with an expiry and prints a URL ending `#c=<code>`; the page trades the code, once, for
 * its key. The token itself never goes into a URL: a browser keeps every URL it visits in its
 * history, fragment included, even after the page replaces it, so only a spent code is left there.
 * `--open` writes a 0600 page that redirects to a fresh link and opens that file, so no command
 * line holds anything worth reading. A view: the code in an artifact frame's URL, kept in the
 * server's memory, good for one request, so the frame's own script finds it already spent.
 */
import { createHash, randomBytes } from "node:crypto";
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { errorMessage } from "../errors";
import { readStateText, removeFile, writeStateFile } from "../state/files";
import { renderState } from "../state/record";
import { isoTime } from "../time";
import type { ForumPaths } from "./paths";

const newCode = () => randomBytes(32).toString("hex");
const hashOf = (code: string) => createHash("sha256").update(code).digest("hex");
const isCode = (x: string) => /^[0-9a-f]{64}$/.test(x);
const isOpenerName = (x: string) => /^[0-9a-f]{32}\.html$/.test(x);

type LinkRecord = { expires_at: string; opener?: string };

/** A link's code is good before its expiry, and never when its expiry lies further ahead than a link lives (a clock stepped back since). */
export function linkLive(expiresAt: string, now: number, maxLifeMs: number): boolean {
  const t = Date.parse(expiresAt);
  return Number.isFinite(t) && now < t && t - now <= maxLifeMs;
}

/** A new link to `path` on the server's port, good for one login within `lifeMs`. */
export function mintLink(fp: ForumPaths, port: number, path: string, now: number, lifeMs: number, opener?: string): string {
  const code = newCode();
  const rec: LinkRecord = { expires_at: isoTime(now + lifeMs), ...(opener ? { opener } : {}) };
  writeStateFile(fp.root, join(fp.links, `${hashOf(code)}.json`), renderState(rec));
  return `http://127.0.0.1:${port}${path}#c=${code}`;
}

/**
 * `--open`'s file: a page in the state dir (0700; the file 0600) that sends the browser on to a
 * new link. The link is written first, naming the file, so a sweep never takes a file in use.
 */
export function writeOpener(fp: ForumPaths, port: number, path: string, now: number, lifeMs: number): string {
  const name = `${randomBytes(16).toString("hex")}.html`;
  const url = mintLink(fp, port, path, now, lifeMs, name);
  const file = join(fp.openers, name);
  writeStateFile(
    fp.root,
    file,
    `<!doctype html><meta charset="utf-8"><meta name="referrer" content="no-referrer"><meta http-equiv="refresh" content="0;url=${url}"><title>vx forum</title><p><a href="${url}">Open the forum</a></p>\n`,
  );
  return file;
}

function readLink(path: string): LinkRecord | undefined {
  try {
    const rec = JSON.parse(readStateText(path) ?? "null");
    if (rec && typeof rec.expires_at === "string" && (rec.opener === undefined || typeof rec.opener === "string")) return rec;
  } catch {
    // not a link vx wrote: refused below
  }
  return undefined;
}

/**
 * The server's login: the link's file (and its opener) removed whatever it held, so a code is
 * spent by its first use; true when it was live. The server is one process and this runs without
 * a pause between the read and the removal, so two logins with one code never both succeed.
 */
export function spendLink(fp: ForumPaths, code: string, now: number, maxLifeMs: number): boolean {
  if (!isCode(code)) return false;
  const path = join(fp.links, `${hashOf(code)}.json`);
  const rec = readLink(path);
  removeFile(path);
  if (!rec) return false;
  if (rec.opener && isOpenerName(rec.opener)) removeFile(join(fp.openers, rec.opener));
  return linkLive(rec.expires_at, now, maxLifeMs);
}

function names(dir: string): string[] {
  try {
    return readdirSync(dir).filter((n) => !n.startsWith("."));
  } catch {
    return [];
  }
}

/** Removes links past their expiry (or unreadable: a code nobody can use), and openers no live link names. */
export function sweepLinks(fp: ForumPaths, now: number, maxLifeMs: number, log: (line: string) => void): void {
  const kept = new Set<string>();
  for (const name of names(fp.links)) {
    const path = join(fp.links, name);
    const rec = /^[0-9a-f]{64}\.json$/.test(name) ? readLink(path) : undefined;
    if (rec && linkLive(rec.expires_at, now, maxLifeMs)) {
      if (rec.opener) kept.add(rec.opener);
      continue;
    }
    try {
      removeFile(path);
      if (!rec) log(`forum: removed ${path}: not a link record vx wrote`);
    } catch (err) {
      log(`forum: cannot remove ${path}: ${errorMessage(err)}`);
    }
  }
  for (const name of names(fp.openers)) {
    if (kept.has(name)) continue;
    try {
      removeFile(join(fp.openers, name));
    } catch (err) {
      log(`forum: cannot remove ${join(fp.openers, name)}: ${errorMessage(err)}`);
    }
  }
}

export type Views = {
  /** A code for one load of `session`'s artifact frame. */
  mint(session: string, now: number): string;
  /** The session a code was for, once; undefined when unknown, spent or past its life. */
  spend(code: string, now: number): string | undefined;
};

/** View codes, in memory: at most `cap` at once (the oldest goes first), each good for `lifeMs`. */
export function createViews(lifeMs: number, cap: number): Views {
  const live = new Map<string, { session: string; until: number }>();
  return {
    mint(session, now) {
      for (const [code, v] of live) if (v.until <= now || v.until - now > lifeMs) live.delete(code);
      while (live.size >= cap) live.delete(live.keys().next().value as string);
      const code = newCode();
      live.set(code, { session, until: now + lifeMs });
      return code;
    },
    spend(code, now) {
      const v = live.get(code);
      live.delete(code);
      return v && now < v.until && v.until - now <= lifeMs ? v.session : undefined;
    },
  };
}

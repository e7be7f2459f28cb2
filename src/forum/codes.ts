/**
 * The forum's one-time codes (FOR-06). Browser history keeps every URL, fragment included, so a URL
 * carries only a code the page trades once for its key, never the token. A view code is good for one
 * request, so the frame's own script finds it spent.
 */
import { randomHex, sha256Hex } from "../random";
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { errorMessage } from "../errors";
import { readStateText, removeFile, writeStateFile } from "../state/files";
import { renderState } from "../state/record";
import { isoTime } from "../time";
import type { ForumPaths } from "./paths";

const newCode = () => randomHex(32);
const hashOf = sha256Hex;
const isCode = (x: string) => /^[0-9a-f]{64}$/.test(x);
const isOpenerName = (x: string) => /^[0-9a-f]{32}\.html$/.test(x);

type LinkRecord = { expires_at: string; opener?: string };

/** Never live when its expiry lies further ahead than a link lives (the clock stepped back). */
export function linkLive(expiresAt: string, now: number, maxLifeMs: number): boolean {
  const t = Date.parse(expiresAt);
  return Number.isFinite(t) && now < t && t - now <= maxLifeMs;
}

export function mintLink(fp: ForumPaths, port: number, path: string, now: number, lifeMs: number, opener?: string): string {
  const code = newCode();
  const rec: LinkRecord = { expires_at: isoTime(now + lifeMs), ...(opener ? { opener } : {}) };
  writeStateFile(fp.root, join(fp.links, `${hashOf(code)}.json`), renderState(rec));
  return `http://127.0.0.1:${port}${path}#c=${code}`;
}

/** `--open`'s 0600 redirect page; the link naming it is written first, so a sweep never takes a file in use. */
export function writeOpener(fp: ForumPaths, port: number, path: string, now: number, lifeMs: number): string {
  const name = `${randomHex(16)}.html`;
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
    // refused below
  }
  return undefined;
}

/** Spent by its first use: no await between read and removal in the one server process, so two logins never both succeed. */
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
  mint(session: string, now: number): string;
  /** Once; undefined when unknown, spent or expired. */
  spend(code: string, now: number): string | undefined;
};

/** In memory, at most `cap` (oldest goes first). */
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

/**
 * `vx forum`: the inbox (FOR-02..04) here; review sessions, the board and the server
 * (FOR-05..09) in forum-review.ts.
 */
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { defineVxCommand } from "../command";
import type { Deps } from "../deps";
import { EXIT, UsageError } from "../errors";
import { type InboxSession, acknowledge, unreadSessions } from "../forum/inbox";
import { printable } from "../printable";
import { SCHEMA_VERSION } from "../state/schemas";
import { REVIEW_SUBCOMMANDS, review, runReviewSub } from "./forum-review";
import { openProject } from "../project";
import { isoTime } from "../time";

/** FOR-02's text: a heading per session, then each message's uid, time and text (indented). */
function inboxText(sessions: InboxSession[]): string {
  if (sessions.length === 0) return "no forum feedback waiting in this project.\n";
  const out: string[] = [];
  for (const s of sessions) {
    out.push(`forum session ${s.file} (${s.session}): ${s.messages.length} unread`);
    for (const { value: m } of s.messages) {
      out.push(`  [${m.uid}] ${m.received_at}`);
      for (const line of m.text.split(/\r?\n/)) out.push(`    ${line}`);
    }
  }
  // Everything here came from files a forum wrote: never let it drive the terminal.
  return `${out.map(printable).join("\n")}\n`;
}

function inboxJson(sessions: InboxSession[], now: number): string {
  const doc = {
    schema_version: SCHEMA_VERSION,
    generated_at: isoTime(now),
    sessions: sessions.map((s) => ({
      session: s.session,
      file: s.file,
      messages: s.messages.map(({ value: m }) => ({ uid: m.uid, text: m.text, received_at: m.received_at })),
    })),
  };
  return `${JSON.stringify(doc, null, 2)}\n`;
}

async function ack(deps: Deps, uids: string[]): Promise<number> {
  const project = await openProject(deps);
  const { acked, unknown } = acknowledge(project.paths, uids, deps.clock.now(), deps.pid);
  for (const uid of acked) deps.stdout.write(`acked ${printable(uid)}\n`);
  for (const uid of unknown) deps.stderr.write(`vx: no unread forum message ${printable(uid)} in this project\n`);
  return unknown.length > 0 ? EXIT.error : EXIT.ok;
}

/** Every `--ack` value: citty keeps only the last of a repeated flag. Flags come before `--`. */
function ackValues(rawArgs: string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < rawArgs.length && rawArgs[i] !== "--"; i++) {
    const a = rawArgs[i] as string;
    if (a === "--ack") out.push(rawArgs[++i] ?? "");
    else if (a.startsWith("--ack=")) out.push(a.slice("--ack=".length));
  }
  return out;
}

/** A word that names a file rather than a mistyped subcommand: it has a dot or a slash, or exists. */
function looksLikeFile(word: string, cwd: string): boolean {
  return word.includes(".") || word.includes("/") || existsSync(resolve(cwd, word));
}

export const forumCommand = defineVxCommand({
  name: "forum",
  summary: "Review artifacts with the general and read their feedback (the forum's server, sessions, board and inbox)",
  usage: [
    "forum <file> [--open]",
    "forum reply <file>|board <text...>",
    "forum end <file>",
    "forum list [--json]",
    "forum board [--open]",
    "forum stop",
    "forum serve",
    "forum inbox [--json] [--ack <uid>...]",
  ],
  args: {
    json: { type: "boolean", description: "Print the unread messages (inbox) or the sessions (list) as one JSON object" },
    open: { type: "boolean", description: "Also open the page in the browser (when there is a display)" },
    ack: { type: "string", valueHint: "uid", description: "Acknowledge these messages (more uids may follow)" },
  },
  async run(args, deps, rawArgs) {
    const [sub, ...rest] = args._ as string[];
    if (sub === undefined) throw new UsageError("missing forum subcommand or <file> (expected a file, reply, end, list, board, stop or inbox)", "forum");
    const known = (REVIEW_SUBCOMMANDS as readonly string[]).includes(sub);
    if (!known && sub !== "inbox" && !looksLikeFile(sub, deps.cwd)) throw new UsageError(`unknown forum subcommand "${sub}"`, "forum");
    if (sub !== "inbox" && ackValues(rawArgs).length > 0) throw new UsageError(`--ack goes with forum inbox, not ${known ? `forum ${sub}` : "a file"}`, "forum");
    const flags = { json: Boolean(args.json), open: Boolean(args.open) };
    if (args.open && sub !== "board" && (known || sub === "inbox")) throw new UsageError(`--open goes with a <file> or board, not forum ${sub}`, "forum");
    if (args.json && sub !== "inbox" && sub !== "list") throw new UsageError(`--json goes with forum inbox or forum list, not ${sub}`, "forum");
    if (known) return runReviewSub(deps, sub as (typeof REVIEW_SUBCOMMANDS)[number], rest, flags);
    if (sub !== "inbox") return review(deps, sub, rest, flags);
    const acks = ackValues(rawArgs);
    if (acks.length === 0) {
      if (rest.length > 0) throw new UsageError(`unexpected argument "${rest[0]}"`, "forum");
      const project = await openProject(deps);
      const sessions = unreadSessions(project.paths);
      deps.stdout.write(args.json ? inboxJson(sessions, deps.clock.now()) : inboxText(sessions));
      return EXIT.ok;
    }
    if (args.json) throw new UsageError("--json lists messages and cannot be combined with --ack", "forum");
    return ack(deps, [...acks, ...rest]);
  },
});

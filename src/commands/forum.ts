/** `vx forum inbox [--json] [--ack <uid>...]` (FOR-02..04): the commander's forum feedback. */
import { defineVxCommand } from "../command";
import type { Deps } from "../deps";
import { EXIT, UsageError } from "../errors";
import { type InboxSession, acknowledge, unreadSessions } from "../forum/inbox";
import { printable } from "../printable";
import { SCHEMA_VERSION } from "../state/schemas";
import { openProject } from "../project";
import { isoTime } from "../time";

/** FOR-02's text: a heading per session, then each message's uid, time and text (indented). */
export function inboxText(sessions: InboxSession[]): string {
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

export function inboxJson(sessions: InboxSession[], now: number): string {
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

export const forumCommand = defineVxCommand({
  name: "forum",
  summary: "Read and acknowledge forum feedback waiting for the commander",
  usage: ["forum inbox [--json] [--ack <uid>...]"],
  args: {
    json: { type: "boolean", description: "Print the unread messages as one JSON object" },
    ack: { type: "string", valueHint: "uid", description: "Acknowledge these messages (more uids may follow)" },
  },
  async run(args, deps, rawArgs) {
    const [sub, ...rest] = args._ as string[];
    if (sub === undefined) throw new UsageError("missing forum subcommand (expected inbox)", "forum");
    if (sub !== "inbox") throw new UsageError(`unknown forum subcommand "${sub}"`, "forum");
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

/**
 * The forum's review and server subcommands (FOR-05, FOR-07..09): `vx forum <file> [--open]`,
 * `reply`, `end`, `list`, `board`, `stop` and `serve`. `vx forum inbox` stays in forum.ts.
 */
import type { Deps } from "../deps";
import { EXIT, UsageError, VxError } from "../errors";
import { reviewableFile } from "../forum/artifact";
import { BOARD_FILE, replyOnBoard } from "../forum/board-talk";
import { ensureServer, forumUrl, openBrowser, stopServer } from "../forum/client";
import { sessionKey } from "../forum/paths";
import { runServer } from "../forum/server";
import { allSessions, endSession, messageProblem, openSession, replyFromCommander, requireSession, summarize } from "../forum/sessions";
import { printable } from "../printable";
import { openProject } from "../project";
import { ensureProjectRecord } from "../state/project-record";
import { stateRoot } from "../state/paths";
import { type ForumServer, SCHEMA_VERSION } from "../state/schemas";
import { isoTime } from "../time";

export const REVIEW_SUBCOMMANDS = ["reply", "end", "list", "board", "stop", "serve"] as const;

type Args = { json?: boolean; open?: boolean };

function noExtra(rest: string[], sub: string): void {
  if (rest.length > 0) throw new UsageError(`unexpected argument "${rest[0]}" after forum ${sub}`, "forum");
}

async function show(deps: Deps, root: string, info: ForumServer, page: string, open: boolean | undefined): Promise<void> {
  deps.stdout.write(`forum: ${forumUrl(deps, root, info, page)}\n`);
  if (!open) return;
  const why = openBrowser(deps, root, info, page);
  if (why) deps.stderr.write(`vx: not opening a browser: ${why}\n`);
}

/** The session an existing artifact of this project has (the file must still be there). */
async function sessionOf(deps: Deps, file: string | undefined, sub: string) {
  if (!file) throw new UsageError(`missing <file> for forum ${sub}`, "forum");
  const project = await openProject(deps);
  const real = reviewableFile(file, deps.cwd, project.paths.project, project.paths.reportsDir);
  return { project, s: requireSession(project.root, sessionKey(real), file, sub === "reply") };
}

/** `vx forum <file> [--open]` (FOR-07). */
export async function review(deps: Deps, file: string, rest: string[], args: Args): Promise<number> {
  noExtra(rest, file);
  const project = await openProject(deps);
  const real = reviewableFile(file, deps.cwd, project.paths.project, project.paths.reportsDir);
  // The board finds a project by its record; a project that never dispatched has none yet.
  ensureProjectRecord(project.paths);
  const s = await openSession(project.root, project.paths.project, real, deps.clock.now());
  const info = await ensureServer(deps, project.root);
  await show(deps, project.root, info, `/s/${s.session}`, args.open);
  return EXIT.ok;
}

/** FOR-08: the word `board` is the board's conversation (a file named board is `./board`). */
async function replyBoard(deps: Deps, text: string): Promise<number> {
  const project = await openProject(deps);
  // The board lists a project by its record: a commander may speak first.
  ensureProjectRecord(project.paths);
  const { acked } = await replyOnBoard(project.paths, text, deps.clock.now(), deps.pid);
  deps.stdout.write(`replied on the board${acked.length ? `; acked ${acked.join(" ")}` : ""}\n`);
  return EXIT.ok;
}

export async function runReviewSub(deps: Deps, sub: (typeof REVIEW_SUBCOMMANDS)[number], rest: string[], args: Args): Promise<number> {
  switch (sub) {
    case "reply": {
      const [file, ...words] = rest;
      const text = words.join(" ");
      if (file === undefined) throw new UsageError("missing <file> for forum reply", "forum");
      if (words.length === 0) throw new UsageError("missing <text> for forum reply", "forum");
      const problem = messageProblem(text);
      if (problem) throw new UsageError(`${problem} - give the reply as text`, "forum");
      if (file === BOARD_FILE) return replyBoard(deps, text);
      const { project, s } = await sessionOf(deps, file, sub);
      const { acked } = await replyFromCommander(project.root, s, text, deps.clock.now(), deps.pid);
      deps.stdout.write(`replied in ${printable(s.file)}${acked.length ? `; acked ${acked.join(" ")}` : ""}\n`);
      return EXIT.ok;
    }
    case "end": {
      noExtra(rest.slice(1), sub);
      const { project, s } = await sessionOf(deps, rest[0], sub);
      if (s.ended_at) throw new VxError(`the forum session for ${rest[0]} has already ended - nothing to end; 'vx forum ${rest[0]}' opens it again`);
      await endSession(project.root, s, deps.clock.now());
      deps.stdout.write(`ended the forum session for ${printable(s.file)}\n`);
      return EXIT.ok;
    }
    case "list": {
      noExtra(rest, sub);
      const project = await openProject(deps);
      const mine = allSessions(project.root)
        .filter((s) => s.project_path === project.paths.project)
        .map((s) => summarize(project.root, s));
      if (args.json) {
        deps.stdout.write(`${JSON.stringify({ schema_version: SCHEMA_VERSION, generated_at: isoTime(deps.clock.now()), sessions: mine }, null, 2)}\n`);
      } else if (mine.length === 0) {
        deps.stdout.write("no forum sessions in this project.\n");
      } else {
        for (const s of mine) {
          deps.stdout.write(`${printable(s.file)} (${s.session}): ${s.unread} unread, last message ${s.last_at ?? "never"}${s.ended ? ", ended" : ""}\n`);
        }
      }
      return EXIT.ok;
    }
    case "board": {
      noExtra(rest, sub);
      const project = await openProject(deps);
      ensureProjectRecord(project.paths);
      const info = await ensureServer(deps, project.root);
      await show(deps, project.root, info, "/", args.open);
      return EXIT.ok;
    }
    case "stop": {
      noExtra(rest, sub);
      deps.stdout.write(`${await stopServer(deps, stateRoot(deps.env))}\n`);
      return EXIT.ok;
    }
    case "serve": {
      noExtra(rest, sub);
      return runServer(deps);
    }
  }
}

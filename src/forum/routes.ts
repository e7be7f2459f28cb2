/** The forum's HTTP surface (FOR-06, FOR-12): 201 only once a message is on disk (FOR-07); a failed write is a 503 and the page keeps the text (FOR-10). */
import type { Exec } from "../exec";
import { errorMessage } from "../errors";
import { projectPaths } from "../state/paths";
import type { ForumWake } from "../state/schemas";
import { type Gate, PAGE_HEADERS, admit, changeProblem, pageKey } from "./access";
import { artifactPlace, notice, serveArtifact } from "./artifact";
import { type Views, spendLink } from "./codes";
import { type DiffCache, type ListenCtx, boardData, knownProjects } from "./board";
import type { UsageCache } from "./card-usage";
import { openReport } from "./review-report";
import { paneScreen } from "./screen";
import { type ActionCtx, isAction, runAction } from "./actions";
import type { Hub } from "./events";
import { postOnBoard } from "./board-talk";
import { cachedAgents, listeningNow } from "./listening";
import { ASSETS } from "./pages";
import { forumPaths, isSessionKey } from "./paths";
import { isEnded, loadSession, messageProblem, postFromGeneral, readTranscript, recoverSession, sessionSummaries } from "./sessions";
import { noteRefused } from "./upkeep";

type RouteCtx = ActionCtx & {
  root: string;
  gate: Gate;
  hub: Hub;
  views: Views;
  /** The longest a link lives (FOR-06). */
  linkLife: number;
  exec: Exec;
  /** Who listens (FOR-09): the backends' seams and herdr's cached agent list. */
  listen: ListenCtx;
  now(): number;
  /** Restarts the idle clock. */
  touch(): void;
  /** WAK-14. */
  rang(project: string, wake: ForumWake): void;
  log(line: string): void;
  /** A flood of one bad request writes one line. */
  logOnce(kind: string, line: string): void;
};

/** A request let in is exempt from the idle limit. */
export type ServerControl = { timeout(req: Request, seconds: number): void };

const json = (status: number, body: unknown, extra: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { ...PAGE_HEADERS, "Content-Type": "application/json; charset=utf-8", ...extra } });
const refuse = (status: number, error: string) => json(status, { error });

function page(name: keyof typeof ASSETS): Response {
  const a = ASSETS[name];
  return new Response(a.body, { headers: { ...PAGE_HEADERS, "Content-Type": a.type } });
}

/** The object, or why it is refused (400); strict UTF-8. */
async function readJson(req: Request): Promise<Record<string, unknown> | string> {
  const bytes = new Uint8Array(await req.arrayBuffer());
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    return "the message is not valid UTF-8";
  }
  try {
    const body = JSON.parse(text);
    if (typeof body === "object" && body !== null && !Array.isArray(body)) return body as Record<string, unknown>;
  } catch {
    // below
  }
  return "the body is not a JSON object";
}

function sessionDoc(ctx: RouteCtx, name: string): Response {
  const s = loadSession(ctx.root, name);
  if (!s) return refuse(404, `no forum session "${name}"`);
  return json(200, {
    session: s.session,
    file: s.file,
    project_path: s.project_path,
    ended: isEnded(s),
    transcript: readTranscript(ctx.root, s.session),
  });
}

/** FOR-06. */
async function postLogin(ctx: RouteCtx, req: Request): Promise<Response> {
  const body = await readJson(req);
  if (typeof body === "string") return refuse(400, body);
  const code = typeof body.code === "string" ? body.code : "";
  if (!spendLink(forumPaths(ctx.root), code, ctx.now(), ctx.linkLife)) {
    return refuse(403, "this link was used or has expired: run 'vx forum board' (or ask the commander) for a new one");
  }
  return json(200, { key: pageKey(ctx.gate) });
}

/** FOR-06. */
function postView(ctx: RouteCtx, name: string): Response {
  const s = loadSession(ctx.root, name);
  if (!s) return refuse(404, `no forum session "${name}"`);
  const code = ctx.views.mint(s.session, ctx.now());
  const { rel } = artifactPlace(s, projectPaths(ctx.root, s.project_path).reportsDir);
  return json(201, { url: `/a/${s.session}/${code}/${rel.split("/").map(encodeURIComponent).join("/")}` });
}

async function postMessage(ctx: RouteCtx, req: Request, name: string): Promise<Response> {
  const body = await readJson(req);
  if (typeof body === "string") return refuse(400, body);
  const problem = messageProblem(body.text);
  if (problem) return refuse(400, problem);
  const s = loadSession(ctx.root, name);
  if (!s) return refuse(404, `no forum session "${name}"`);
  if (isEnded(s)) return refuse(409, "this review has ended: the commander takes no more feedback here");
  try {
    recoverSession(ctx.root, s, ctx.now());
    const { line, wake } = await postFromGeneral(ctx.root, s, body.text as string, ctx.now());
    if (wake) ctx.rang(s.project_path, wake);
    return json(201, { uid: line.uid });
  } catch (err) {
    ctx.log(`forum: message to ${name} not written: ${errorMessage(err)}`);
    return refuse(503, `the forum could not write your message (${errorMessage(err)}); your text is kept - send it again`);
  }
}

/** FOR-09's box: the board's conversation, then the inbox and the wake (FOR-07's order); says whether anyone listens. */
async function postToCommander(ctx: RouteCtx, req: Request): Promise<Response> {
  const body = await readJson(req);
  if (typeof body === "string") return refuse(400, body);
  const problem = messageProblem(body.text);
  if (problem) return refuse(400, problem);
  const paths = knownProjects(ctx.root).find((p) => p.project === body.project_path);
  if (!paths) return refuse(404, "the forum knows no such project");
  try {
    const now = ctx.now();
    // Asked before the write: a listening await takes the wake at once and is gone by the 201.
    const { listening } = await listeningNow(ctx.root, paths, ctx.listen.deps, cachedAgents(ctx.listen.agents, ctx.listen.deps, now));
    const { line, wake } = await postOnBoard(paths, body.text as string, now);
    if (wake) ctx.rang(paths.project, wake);
    return json(201, { uid: line.uid, listening });
  } catch (err) {
    ctx.log(`forum: board message not written: ${errorMessage(err)}`);
    return refuse(503, `the forum could not write your message (${errorMessage(err)}); your text is kept - send it again`);
  }
}

/** FOR-14: the answer is the command's, whatever its exit; `review` opens a scout's report's session here. */
async function postAction(ctx: RouteCtx, req: Request, action: string): Promise<Response> {
  if (!isAction(action) && action !== "review") return refuse(404, "no such forum action");
  const body = await readJson(req);
  if (typeof body === "string") return json(400, { ok: false, output: "", error: body });
  if (action === "review") {
    const opened = await openReport(ctx.root, body, ctx.now());
    return json(opened.status, opened.body);
  }
  const reply = await runAction(ctx, action, body);
  return json(reply.status, reply.body);
}

/** `/a/<session>/<code>/<file>`: the code is spent here, so the frame's script finds nothing reusable in its URL. */
async function artifactView(ctx: RouteCtx, url: URL): Promise<Response> {
  const [, , name = "", code = "", ...rest] = url.pathname.split("/");
  const session = ctx.views.spend(code, ctx.now());
  if (!isSessionKey(name) || session !== name) return notice(403, "This view of the artifact was used or has expired: reload the review page to see it again.");
  const s = loadSession(ctx.root, name);
  if (!s) return notice(404, "This review session is not there any more.");
  const place = artifactPlace(s, projectPaths(ctx.root, s.project_path).reportsDir);
  if (rest.join("/") !== place.rel.split("/").map(encodeURIComponent).join("/")) {
    return notice(404, `The forum shows only the file under review (${s.file}) here: open another file with vx forum <file>.`);
  }
  return serveArtifact(place.dir, place.rel, ctx.exec);
}

/** Undefined when its Host makes none (`a:b:c`, empty). */
function urlOf(ctx: RouteCtx, req: Request): URL | undefined {
  try {
    return new URL(req.url);
  } catch {
    const host = JSON.stringify((req.headers.get("host") ?? "").slice(0, 100));
    ctx.logOnce("malformed-host", `forum: refused a request with a malformed Host header (${host}) - further ones are refused without a log line`);
    return undefined;
  }
}

/** FOR-12: a corrupt session is refused by name, the rest served. */
function sessionsDoc(ctx: RouteCtx) {
  const { sessions, refused } = sessionSummaries(ctx.root);
  return { sessions, refused: noteRefused(refused, ctx.logOnce) };
}

/** FOR-15: a GET, so its words come in the query. */
async function getScreen(ctx: RouteCtx, url: URL): Promise<Response> {
  const query = { project_path: url.searchParams.get("project_path") ?? undefined, task_id: url.searchParams.get("task_id") ?? undefined };
  const screen = await paneScreen(ctx, query);
  return json(screen.status, screen.body);
}

export function createHandler(ctx: RouteCtx, cache: DiffCache) {
  const usage: UsageCache = new Map();
  return async function handle(req: Request, server?: ServerControl): Promise<Response> {
    const url = urlOf(ctx, req);
    if (!url) return new Response("bad request: malformed Host header\n", { status: 400, headers: { "Content-Type": "text/plain; charset=utf-8" } });
    const verdict = admit(req.method, url, req.headers, ctx.gate);
    if (verdict.kind === "refuse") return new Response(`${verdict.reason}\n`, { status: verdict.status, headers: { "Content-Type": "text/plain; charset=utf-8" } });
    ctx.touch();
    // An event stream is silent for long and a board waits on git; the browser bounds its own connections.
    server?.timeout(req, 0);
    const path = url.pathname;
    const parts = path.split("/");
    if (req.method !== "GET" && req.method !== "HEAD") {
      const why = changeProblem(req.method, req.headers);
      if (why) return refuse(req.method === "POST" ? 403 : 405, why);
      if (path === "/api/login") return postLogin(ctx, req);
      if (parts[1] === "api" && parts[2] === "sessions" && parts[4] === "messages" && parts.length === 5) return postMessage(ctx, req, parts[3] ?? "");
      if (parts[1] === "api" && parts[2] === "sessions" && parts[4] === "view" && parts.length === 5) return postView(ctx, parts[3] ?? "");
      if (path === "/api/projects/messages") return postToCommander(ctx, req);
      if (parts[1] === "api" && parts[2] === "tasks" && parts.length === 4) return postAction(ctx, req, parts[3] ?? "");
      return refuse(404, "no such forum action");
    }
    try {
      if (path.startsWith("/a/")) return await artifactView(ctx, url);
      if (path === "/") return page("board.html");
      if (parts[1] === "s" && parts.length === 3) return page("review.html");
      if (path === "/assets/forum.js") return page("forum.js");
      if (path === "/assets/board.js") return page("board.js");
      if (path === "/assets/cards.js") return page("cards.js");
      if (path === "/assets/forum.css") return page("forum.css");
      if (path === "/api/events") return ctx.hub.open();
      if (path === "/api/board") return json(200, await boardData(ctx.root, ctx.exec, cache, ctx.now(), ctx.listen, { env: ctx.env, cache: usage }));
      if (path === "/api/tasks/screen") return await getScreen(ctx, url);
      if (path === "/api/sessions") return json(200, sessionsDoc(ctx));
      if (parts[1] === "api" && parts[2] === "sessions" && parts.length === 4) return sessionDoc(ctx, parts[3] ?? "");
    } catch (err) {
      return refuse(500, errorMessage(err));
    }
    return refuse(404, "nothing here");
  };
}

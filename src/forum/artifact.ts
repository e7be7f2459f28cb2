/**
 * Artifacts (FOR-07, FOR-06, FOR-10): which files a review can show, and serving one file of a
 * session's project to the sandboxed frame: the path resolved (links included) and kept inside
 * the project, Markdown rendered by `marked`, a missing file answered by a notice, not an error.
 */
import { lstatSync, readFileSync, realpathSync, statSync } from "node:fs";
import { extname, join, sep } from "node:path";
import { marked } from "marked";
import { UsageError } from "../errors";
import { ARTIFACT_HEADERS } from "./access";

/** The types a review session opens with (FOR-07), by extension. */
const REVIEWABLE: Record<string, string> = {
  ".html": "html",
  ".htm": "html",
  ".md": "md",
  ".markdown": "md",
  ".svg": "svg",
  ".png": "png",
  ".jpg": "jpg",
  ".jpeg": "jpg",
  ".txt": "txt",
};

/** What the frame serves beside the artifact (files an HTML artifact links to). */
const CONTENT_TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".htm": "text/html; charset=utf-8",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".jpg": "image/jpeg",
  ".jpeg": "image/jpeg",
  ".gif": "image/gif",
  ".webp": "image/webp",
  ".txt": "text/plain; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".json": "application/json",
};

const within = (path: string, dir: string) => path === dir || path.startsWith(dir.endsWith(sep) ? dir : dir + sep);

/**
 * `vx forum <file>`'s artifact: the real path of an existing regular file inside the project, of a
 * type the page shows; otherwise a one-line usage error naming the file.
 */
export function reviewableFile(given: string, cwd: string, project: string): string {
  const abs = given.startsWith("/") ? given : join(cwd, given);
  let real: string;
  try {
    real = realpathSync(abs);
  } catch {
    throw new UsageError(`forum cannot show ${given}: no such file`, "forum");
  }
  if (!within(real, realpathSync(project))) {
    throw new UsageError(`forum cannot show ${given}: it is outside this project (${project})`, "forum");
  }
  if (!statSync(real).isFile()) throw new UsageError(`forum cannot show ${given}: not a regular file`, "forum");
  const ext = extname(real).toLowerCase();
  if (!REVIEWABLE[ext]) {
    const type = ext ? ext.slice(1) : "a file without an extension";
    throw new UsageError(`forum cannot show ${given}: ${type} is not one of html, md, svg, png, jpg, txt`, "forum");
  }
  return real;
}

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

const MD_STYLE =
  "body{font:16px/1.55 system-ui,sans-serif;max-width:52rem;margin:1.5rem auto;padding:0 1rem;color:#1d2330}" +
  "pre,code{background:#f2f4f7;border-radius:4px}pre{padding:.75rem;overflow:auto}code{padding:0 .2em}" +
  "table{border-collapse:collapse}td,th{border:1px solid #ccd;padding:.3rem .6rem}img{max-width:100%}" +
  "blockquote{border-left:4px solid #ccd;margin:0;padding-left:1rem;color:#555}";

/** Markdown as one HTML document; its raw HTML stays, since the frame is sandboxed (FOR-06). */
export function renderMarkdown(text: string, title: string): string {
  const body = marked.parse(text, { async: false, gfm: true }) as string;
  return `<!doctype html><html><head><meta charset="utf-8"><title>${escapeHtml(title)}</title><style>${MD_STYLE}</style></head><body>${body}</body></html>`;
}

function notice(status: number, text: string): Response {
  const html = `<!doctype html><meta charset="utf-8"><body style="font:16px system-ui,sans-serif;padding:2rem;color:#7a2b00"><p>${escapeHtml(text)}</p></body>`;
  return new Response(html, { status, headers: { ...ARTIFACT_HEADERS, "Content-Type": "text/html; charset=utf-8" } });
}

/**
 * One file of `project` for the artifact frame. `rel` is the URL path after the session's prefix,
 * still percent-encoded: every segment is decoded on its own, and `..`, `.`, empty segments and
 * a real path (links resolved) outside the project are refused.
 */
export function serveProjectFile(project: string, rel: string): Response {
  let segments: string[];
  try {
    segments = rel.split("/").map((s) => decodeURIComponent(s));
  } catch {
    return notice(400, "That path is not well formed.");
  }
  if (segments.some((s) => s === "" || s === "." || s === ".." || s.includes("/") || s.includes("\0") || s.includes("\\"))) {
    return notice(403, "That path leaves the project: the forum shows only files inside it.");
  }
  const shown = segments.join("/");
  const path = join(project, ...segments);
  let real: string;
  try {
    real = realpathSync(path);
  } catch {
    return notice(404, `${shown} is not there (moved or deleted?). The page shows it again once it exists.`);
  }
  let root: string;
  try {
    root = realpathSync(project);
  } catch {
    return notice(404, `The project ${project} is not there any more.`);
  }
  if (!within(real, root)) return notice(403, `${shown} leads outside the project: the forum follows no link out of it.`);
  const st = lstatSync(real);
  if (!st.isFile()) return notice(404, `${shown} is not a regular file.`);
  const ext = extname(real).toLowerCase();
  const headers = { ...ARTIFACT_HEADERS };
  if (ext === ".md" || ext === ".markdown") {
    const html = renderMarkdown(readFileSync(real, "utf8"), shown);
    return new Response(html, { headers: { ...headers, "Content-Type": "text/html; charset=utf-8" } });
  }
  const type = CONTENT_TYPES[ext] ?? "application/octet-stream";
  return new Response(readFileSync(real), { headers: { ...headers, "Content-Type": type } });
}

/** A cheap fingerprint of a file (mtime and size), for reloading the frame when it changes. */
export function fileStamp(path: string): string {
  try {
    const st = statSync(path);
    return `${st.mtimeMs}:${st.size}`;
  } catch {
    return "missing";
  }
}

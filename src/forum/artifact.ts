/** Artifacts (FOR-07, FOR-06, FOR-10): which files a review can show, and serving them to the sandboxed frame. */
import { lstatSync, readFileSync, realpathSync, statSync } from "node:fs";
import { extname, isAbsolute, join, relative, sep } from "node:path";
import { UsageError } from "../errors";
import type { Exec } from "../exec";
import { ARTIFACT_HEADERS } from "./access";
import { inlineArtifact } from "./inline";

/** FOR-07. */
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

const within = (path: string, dir: string) => path === dir || path.startsWith(dir.endsWith(sep) ? dir : dir + sep);

/** A directory's real path; undefined when it is not there. */
function realDir(dir: string): string | undefined {
  try {
    return realpathSync(dir);
  } catch {
    return undefined;
  }
}

/**
 * FOR-07: a file inside the project, or one of its scouts' reports (which live in its state dir's `reports/`,
 * outside the checkout, so a scout never writes into the project it only reads).
 */
export function reviewableFile(given: string, cwd: string, project: string, reports?: string): string {
  const abs = given.startsWith("/") ? given : join(cwd, given);
  let real: string;
  try {
    real = realpathSync(abs);
  } catch {
    throw new UsageError(`forum cannot show ${given}: no such file`, "forum");
  }
  const reportsDir = reports === undefined ? undefined : realDir(reports);
  if (!within(real, realpathSync(project)) && !(reportsDir && within(real, reportsDir) && real !== reportsDir)) {
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

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

const MD_STYLE =
  "body{font:16px/1.55 system-ui,sans-serif;max-width:52rem;margin:1.5rem auto;padding:0 1rem;color:#1d2330}" +
  "pre,code{background:#f2f4f7;border-radius:4px}pre{padding:.75rem;overflow:auto}code{padding:0 .2em}" +
  "table{border-collapse:collapse}td,th{border:1px solid #ccd;padding:.3rem .6rem}img{max-width:100%}" +
  "blockquote{border-left:4px solid #ccd;margin:0;padding-left:1rem;color:#555}";

/** Raw HTML stays: the frame is sandboxed (FOR-06). */
function renderMarkdown(text: string, title: string): string {
  // Required here, not imported at the top: marked builds its rules when loaded, a cost every vx start would pay.
  const { marked } = require("marked") as typeof import("marked");
  const body = marked.parse(text, { async: false, gfm: true }) as string;
  return `<!doctype html><html><head><meta charset="utf-8"><title>${escapeHtml(title)}</title><style>${MD_STYLE}</style></head><body>${body}</body></html>`;
}

export function notice(status: number, text: string): Response {
  const html = `<!doctype html><meta charset="utf-8"><body style="font:16px system-ui,sans-serif;padding:2rem;color:#7a2b00"><p>${escapeHtml(text)}</p></body>`;
  return new Response(html, { status, headers: { ...ARTIFACT_HEADERS, "Content-Type": "text/html; charset=utf-8" } });
}

const SHOWN_AS: Record<string, string> = {
  html: "text/html; charset=utf-8",
  md: "text/html; charset=utf-8",
  svg: "image/svg+xml",
  png: "image/png",
  jpg: "image/jpeg",
  txt: "text/plain; charset=utf-8",
};

/**
 * Where a session's artifact lives: `file` relative to the project, or (a scout's report) an absolute path inside the
 * project's state dir's `reports/`, served from there and kept inside it as a project file is kept inside the project.
 */
export function artifactPlace(s: { file: string; project_path: string }, reportsDir: string): { dir: string; rel: string } {
  if (!isAbsolute(s.file)) return { dir: s.project_path, rel: s.file };
  // The file was recorded by its real path: compared with the directory's (a state root under a symbolic link).
  const dir = realDir(reportsDir) ?? reportsDir;
  const rel = relative(dir, s.file);
  // Anything else absolute is no artifact of this project: a name under the project that is not there.
  if (rel === "" || rel === ".." || rel.startsWith("../") || isAbsolute(rel)) return { dir: s.project_path, rel: s.file.replace(/^\/+/, "") };
  return { dir, rel };
}

/** FOR-06, FOR-07: resolved and kept inside the project; HTML and Markdown with their references inlined, so the frame loads nothing else. */
export async function serveArtifact(project: string, file: string, exec: Exec): Promise<Response> {
  let real: string;
  let root: string;
  try {
    root = realpathSync(project);
  } catch {
    return notice(404, `The project ${project} is not there any more.`);
  }
  try {
    real = realpathSync(join(project, file));
  } catch {
    return notice(404, `${file} is not there (moved or deleted?). The page shows it again once it exists.`);
  }
  if (!within(real, root)) return notice(403, `${file} leads outside the project: the forum follows no link out of it.`);
  if (!lstatSync(real).isFile()) return notice(404, `${file} is not a regular file.`);
  const kind = REVIEWABLE[extname(real).toLowerCase()] ?? "";
  const type = SHOWN_AS[kind];
  if (!type) return notice(415, `${file} is not one of html, md, svg, png, jpg, txt.`);
  const headers = { ...ARTIFACT_HEADERS, "Content-Type": type };
  if (kind === "html" || kind === "md") {
    const text = readFileSync(real, "utf8");
    const html = kind === "md" ? renderMarkdown(text, file) : text;
    return new Response(await inlineArtifact(html, real, root, exec), { headers });
  }
  return new Response(readFileSync(real), { headers });
}

/** For reloading the frame when the file changes. */
export function fileStamp(path: string): string {
  try {
    const st = statSync(path, { throwIfNoEntry: false });
    if (!st) return "missing";
    return `${st.mtimeMs}:${st.size}`;
  } catch {
    return "missing";
  }
}

/**
 * An artifact made whole (FOR-06): files it references become data: URLs, so the frame asks the server
 * for nothing. Only when both paths stay inside its directory, none is hidden (`.git/`, `.env`) or git-ignored,
 * and it is a known, bounded regular file; anything else is left for the frame's policy to block.
 */
import { closeSync, constants, fstatSync, openSync, readFileSync, realpathSync } from "node:fs";
import { dirname, extname, isAbsolute, join, relative, sep } from "node:path";
import { runGitWithInput } from "../camps/git";
import type { Exec } from "../exec";

const MAX_FILE = 8 << 20;
const MAX_TOTAL = 32 << 20;
const MAX_REFS = 2000;
const CSS_DEPTH = 4;

const TYPES: Record<string, string> = {
  ".css": "text/css",
  ".js": "text/javascript",
  ".mjs": "text/javascript",
  ".png": "image/png",
  ".jpg": "image/jpeg",
  ".jpeg": "image/jpeg",
  ".gif": "image/gif",
  ".webp": "image/webp",
  ".avif": "image/avif",
  ".svg": "image/svg+xml",
  ".ico": "image/x-icon",
  ".bmp": "image/bmp",
  ".woff": "font/woff",
  ".woff2": "font/woff2",
  ".ttf": "font/ttf",
  ".otf": "font/otf",
  ".mp3": "audio/mpeg",
  ".ogg": "audio/ogg",
  ".wav": "audio/wav",
  ".mp4": "video/mp4",
  ".webm": "video/webm",
  ".vtt": "text/vtt",
};

/** `<a href>` is not one: a link is navigation, not content. */
const LOADS: [string, string[]][] = [
  ["img", ["src", "srcset"]],
  ["source", ["src", "srcset"]],
  ["script", ["src"]],
  ["link", ["href"]],
  ["video", ["src", "poster"]],
  ["audio", ["src"]],
  ["track", ["src"]],
  ["input", ["src"]],
  ["image", ["href", "xlink:href"]],
];

/** As segments inside the artifact's directory; undefined when not a relative file path or it climbs out. */
export function resolveRef(ref: string, base: string[]): string[] | undefined {
  const v = ref.trim().split(/[?#]/)[0] ?? "";
  if (v === "" || v.startsWith("/") || v.startsWith("\\") || /^[a-z][a-z0-9+.-]*:/i.test(v)) return undefined;
  const out = [...base];
  for (const raw of v.split("/")) {
    let s: string;
    try {
      s = decodeURIComponent(raw);
    } catch {
      return undefined;
    }
    if (s.includes("/") || s.includes("\\") || s.includes("\0")) return undefined;
    if (s === "" || s === ".") continue;
    if (s === "..") {
      if (out.length === 0) return undefined;
      out.pop();
    } else out.push(s);
  }
  return out.length > 0 ? out : undefined;
}

const hidden = (parts: string[]) => parts.some((p) => p.startsWith("."));

const CSS_URL = /url\(\s*(?:"([^"]*)"|'([^']*)'|([^)"'\s]*))\s*\)|@import\s+(?:"([^"]*)"|'([^']*)')/g;

function rewriteCss(css: string, swap: (ref: string) => string | undefined): string {
  return css.replace(CSS_URL, (whole, a, b, c, d, e) => {
    const data = swap(a ?? b ?? c ?? d ?? e ?? "");
    if (!data) return whole;
    return whole.startsWith("@import") ? `@import url("${data}")` : `url("${data}")`;
  });
}

/** `swap` sees every reference, as written. */
function rewriteHtml(html: string, swap: (ref: string) => string | undefined): string {
  let rw = new HTMLRewriter();
  for (const [tag, attrs] of LOADS) {
    rw = rw.on(tag, {
      element(el) {
        for (const a of attrs) {
          const v = el.getAttribute(a);
          if (v === null) continue;
          if (a === "srcset") {
            const parts = v.split(",").map((c) => {
              const [url = "", ...rest] = c.trim().split(/\s+/);
              return [swap(url) ?? url, ...rest].join(" ");
            });
            el.setAttribute(a, parts.join(", "));
          } else {
            const data = swap(v);
            if (data) el.setAttribute(a, data);
          }
        }
      },
    });
  }
  let style = "";
  return rw
    .on("[style]", { element: (el) => void el.setAttribute("style", rewriteCss(el.getAttribute("style") ?? "", swap)) })
    .on("style", {
      text(t) {
        style += t.text;
        if (t.lastInTextNode) {
          t.replace(rewriteCss(style, swap), { html: true });
          style = "";
        } else t.remove();
      },
    })
    .transform(html);
}

/** Only while it is still the regular file that was resolved (no link, no swap since). */
function readResolved(real: string): Buffer | undefined {
  let fd: number;
  try {
    fd = openSync(real, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch {
    return undefined;
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile() || st.size > MAX_FILE) return undefined;
    // A directory above it swapped for a link after realpath would open a file elsewhere.
    if (process.platform === "linux" && realpathSync(`/proc/self/fd/${fd}`) !== real) return undefined;
    return readFileSync(fd);
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}

type Found = { real: string; asWritten: string };

/** Undefined when git cannot tell, and then nothing is inlined. */
async function ignoredOf(exec: Exec, project: string, paths: string[]): Promise<Set<string> | undefined> {
  if (paths.length === 0) return new Set();
  const res = await runGitWithInput(exec, project, ["check-ignore", "--stdin", "-z"], `${paths.join("\0")}\0`);
  if (res.code !== 0 && res.code !== 1) return undefined;
  return new Set(res.stdout.split("\0").filter(Boolean));
}

export async function inlineArtifact(html: string, realFile: string, project: string, exec: Exec): Promise<string> {
  const dir = dirname(realFile);
  const root = realpathSync(project);
  const found = new Map<string, Found>();
  const texts = new Map<string, string>();
  let wanted: { ref: string; base: string[] }[] = [];
  rewriteHtml(html, (ref) => void wanted.push({ ref, base: [] }));
  for (let depth = 0; depth < CSS_DEPTH && wanted.length > 0 && found.size < MAX_REFS; depth++) {
    const fresh: string[] = [];
    for (const { ref, base } of wanted) {
      const parts = resolveRef(ref, base);
      const key = parts?.join("/");
      if (!parts || !key || found.has(key) || hidden(parts) || !TYPES[extname(key).toLowerCase()]) continue;
      let real: string;
      try {
        real = realpathSync(join(dir, ...parts));
      } catch {
        continue;
      }
      const rel = relative(dir, real);
      if (rel === "" || isAbsolute(rel) || hidden(rel.split(sep))) continue;
      found.set(key, { real, asWritten: join(dir, ...parts) });
      fresh.push(key);
    }
    const ignored = await ignoredOf(
      exec,
      root,
      fresh.flatMap((k) => [relative(root, (found.get(k) as Found).asWritten), relative(root, (found.get(k) as Found).real)]),
    );
    wanted = [];
    for (const key of fresh) {
      const f = found.get(key) as Found;
      if (!ignored || ignored.has(relative(root, f.asWritten)) || ignored.has(relative(root, f.real))) {
        found.delete(key);
        continue;
      }
      if (key.endsWith(".css")) {
        const bytes = readResolved(f.real);
        if (!bytes) continue;
        const css = bytes.toString("utf8");
        texts.set(key, css);
        const base = key.split("/").slice(0, -1);
        rewriteCss(css, (ref) => void wanted.push({ ref, base }));
      }
    }
  }

  let total = 0;
  const data = new Map<string, string | undefined>();
  const dataOf = (key: string): string | undefined => {
    if (data.has(key)) return data.get(key);
    data.set(key, undefined); // ends an import cycle
    const f = found.get(key);
    const type = TYPES[extname(key).toLowerCase()];
    if (!f || !type) return undefined;
    const css = texts.get(key);
    const base = key.split("/").slice(0, -1);
    const bytes = css !== undefined ? Buffer.from(rewriteCss(css, (ref) => swapAt(ref, base))) : readResolved(f.real);
    if (!bytes || total + bytes.length > MAX_TOTAL) return undefined;
    total += bytes.length;
    const url = `data:${type};base64,${bytes.toString("base64")}`;
    data.set(key, url);
    return url;
  };
  const swapAt = (ref: string, base: string[]) => {
    const key = resolveRef(ref, base)?.join("/");
    return key ? dataOf(key) : undefined;
  };
  return rewriteHtml(html, (ref) => swapAt(ref, []));
}

/**
 * Who gets in (FOR-06), as pure decisions over a request's URL and headers: the Host check
 * against DNS rebinding, the key every API call carries in a header (never a cookie: a browser
 * sends this origin's cookies to every port of 127.0.0.1, and another local user's server on
 * another port would receive them), the rules for a change (POST, JSON, same Origin), and the
 * headers of pages and of the sandboxed artifact frame.
 */
import { createHmac, timingSafeEqual } from "node:crypto";

export type Gate = { port: number; token: string };

/** 421 unless the request names this server exactly (a rebound DNS name never does). */
export function hostAllowed(host: string | null, port: number): boolean {
  return host === `127.0.0.1:${port}` || host === `localhost:${port}`;
}

function sameSecret(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/**
 * The key a page gets at its login and sends on every API call. Bound to the port: a key a page
 * sent to whatever took over a port the server left lets nobody into a server on another port.
 */
export function pageKey(gate: Gate): string {
  return createHmac("sha256", gate.token).update(`page:${gate.port}`).digest("hex");
}

/** What a request may reach without a key: the static pages and assets (they hold no data), the login, an artifact view. */
function isPublic(method: string, path: string): boolean {
  if (method === "POST") return path === "/api/login";
  if (method !== "GET" && method !== "HEAD") return false;
  return path === "/" || /^\/s\/[^/]+$/.test(path) || path === "/assets/forum.js" || path === "/assets/forum.css" || path.startsWith("/a/");
}

type Verdict = { kind: "in" } | { kind: "refuse"; status: 403 | 421; reason: string };

/**
 * FOR-06 for every request: the Host, then the key in `Authorization: Bearer` (the page key, or
 * the token itself for a script that reads `forum/access-token`). Cookies are never read.
 */
export function admit(method: string, url: URL, headers: Headers, gate: Gate): Verdict {
  if (!hostAllowed(headers.get("host"), gate.port)) {
    return { kind: "refuse", status: 421, reason: `this server answers only to 127.0.0.1:${gate.port} or localhost:${gate.port}` };
  }
  if (isPublic(method, url.pathname)) return { kind: "in" };
  const m = /^Bearer ([0-9a-f]{64})$/.exec(headers.get("authorization") ?? "");
  const given = m?.[1];
  if (given !== undefined && (sameSecret(given, pageKey(gate)) || sameSecret(given, gate.token))) return { kind: "in" };
  return { kind: "refuse", status: 403, reason: "no forum key: open the link vx printed (vx forum board prints a new one)" };
}

/** Why a state-changing request is refused (FOR-06), or undefined when it may go on. */
export function changeProblem(method: string, headers: Headers): string | undefined {
  if (method !== "POST") return "a change must be a POST";
  const type = (headers.get("content-type") ?? "").split(";")[0]?.trim().toLowerCase();
  if (type !== "application/json") return "a change must carry a JSON body (Content-Type: application/json)";
  const host = headers.get("host");
  const origin = headers.get("origin");
  if (origin === null || origin !== `http://${host}`) return "a change must come from the forum's own page (Origin does not match)";
  return undefined;
}

/** Headers every forum page carries: its own scripts only, never framed by another site. */
export const PAGE_HEADERS = {
  "Content-Security-Policy":
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; frame-src 'self'; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
  "X-Content-Type-Options": "nosniff",
  "Referrer-Policy": "no-referrer",
  "Cache-Control": "no-store",
};

/**
 * An artifact's headers: a sandbox without allow-same-origin (its scripts run in an opaque origin
 * that cannot read the forum's answers or the page's key), and a policy under which it loads
 * nothing from any server and sends nothing anywhere: what it shows came inlined in the one
 * response (FOR-06). The review page's `frame-src 'self'` keeps it from navigating itself away.
 */
export const ARTIFACT_HEADERS = {
  "Content-Security-Policy":
    "sandbox allow-scripts; default-src 'none'; script-src 'unsafe-inline' 'unsafe-eval' data:; style-src 'unsafe-inline' data:; img-src data: blob:; font-src data:; media-src data: blob:; connect-src 'none'; frame-src 'none'; worker-src 'none'; object-src 'none'; form-action 'none'; base-uri 'none'; frame-ancestors 'self'",
  "X-Content-Type-Options": "nosniff",
  "X-DNS-Prefetch-Control": "off",
  "Referrer-Policy": "no-referrer",
  "Cache-Control": "no-store",
};

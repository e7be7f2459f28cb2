/**
 * Who gets in (FOR-06): Host checked against DNS rebinding; the key in a header, never a cookie (a
 * browser sends 127.0.0.1's cookies to every port, so another local user's server would get them).
 */
import { hmacSha256Hex, sameSecret } from "../random";

export type Gate = { port: number; token: string };

/** 421 unless the request names this server exactly (a rebound DNS name never does). */
export function hostAllowed(host: string | null, port: number): boolean {
  return host === `127.0.0.1:${port}` || host === `localhost:${port}`;
}

/** Bound to the port: a key sent to whatever took over a port the server left opens no other port's server. */
export function pageKey(gate: Gate): string {
  return hmacSha256Hex(gate.token, `page:${gate.port}`);
}

/** Without a key: the static pages and assets (no data), the login, an artifact view. */
function isPublic(method: string, path: string): boolean {
  if (method === "POST") return path === "/api/login";
  if (method !== "GET" && method !== "HEAD") return false;
  return (
    path === "/" || /^\/s\/[^/]+$/.test(path) || path === "/assets/forum.js" || path === "/assets/board.js" || path === "/assets/cards.js" || path === "/assets/forum.css" || path.startsWith("/a/")
  );
}

type Verdict = { kind: "in" } | { kind: "refuse"; status: 403 | 421; reason: string };

/** FOR-06: the Host, then `Authorization: Bearer` (the page key, or the token for a script). Cookies are never read. */
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

/** FOR-06. */
export function changeProblem(method: string, headers: Headers): string | undefined {
  if (method !== "POST") return "a change must be a POST";
  const type = (headers.get("content-type") ?? "").split(";")[0]?.trim().toLowerCase();
  if (type !== "application/json") return "a change must carry a JSON body (Content-Type: application/json)";
  const host = headers.get("host");
  const origin = headers.get("origin");
  if (origin === null || origin !== `http://${host}`) return "a change must come from the forum's own page (Origin does not match)";
  return undefined;
}

export const PAGE_HEADERS = {
  "Content-Security-Policy":
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; frame-src 'self'; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
  "X-Content-Type-Options": "nosniff",
  "Referrer-Policy": "no-referrer",
  "Cache-Control": "no-store",
};

/**
 * FOR-06: no allow-same-origin, so its scripts cannot read the forum's answers or the key; it loads
 * nothing and sends nothing (all inlined). The review page's `frame-src 'self'` keeps it from navigating away.
 */
export const ARTIFACT_HEADERS = {
  "Content-Security-Policy":
    "sandbox allow-scripts; default-src 'none'; script-src 'unsafe-inline' 'unsafe-eval' data:; style-src 'unsafe-inline' data:; img-src data: blob:; font-src data:; media-src data: blob:; connect-src 'none'; frame-src 'none'; worker-src 'none'; object-src 'none'; form-action 'none'; base-uri 'none'; frame-ancestors 'self'",
  "X-Content-Type-Options": "nosniff",
  "X-DNS-Prefetch-Control": "off",
  "Referrer-Policy": "no-referrer",
  "Cache-Control": "no-store",
};

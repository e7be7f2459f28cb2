/** In-line provider tokens (RED-04), recognised by prefix and shape; the rest of the line kept. */
import { SECRET } from "./placeholders";

// The trailing [A-Za-z0-9_-]* swallows the word: a tail glued to the placeholder (`]` anchors) could
// expose a second token, breaking idempotency. Each pattern starts with a literal character (grouped below).
const FAMILIES: readonly [family: string, patterns: string[]][] = [
  ["OpenAI, Anthropic and other sk- keys", ["sk-[A-Za-z0-9_-]{16,}"]],
  ["Stripe secret and restricted keys", ["sk_(?:live|test)_[A-Za-z0-9]{16,}", "rk_(?:live|test)_[A-Za-z0-9]{16,}"]],
  ["Stripe webhook secret", ["whsec_[A-Za-z0-9+/=]{24,}"]],
  ["GitHub", ["gh[pousr]_[A-Za-z0-9_]{20,}"]],
  ["GitHub fine-grained", ["github_pat_[A-Za-z0-9_]{30,}"]],
  ["GitLab", ["gl(?:pat|rt|rtr|dt|ptt|cbt|imt|agent|soat|ffct|oas|ft|wt)-[A-Za-z0-9_-]{20,}"]],
  ["Slack", ["xox[abcdeoprs]-[A-Za-z0-9-]{10,}", "xoxe\\.xox[abcdeoprs]-[A-Za-z0-9-]{10,}"]],
  ["Slack app-level", ["xapp-[A-Za-z0-9-]{10,}"]],
  ["AWS access key id", ["AKIA[A-Z0-9]{16}", "ASIA[A-Z0-9]{16}"]],
  ["Google API key", ["AIza[A-Za-z0-9_-]{35}"]],
  ["Google OAuth access token", ["ya29\\.[A-Za-z0-9_.-]{20,}"]],
  ["Google OAuth refresh token", ["1//0[A-Za-z0-9_-]{30,}"]],
  ["Google OAuth client secret", ["GOCSPX-[A-Za-z0-9_-]{20,}"]],
  ["npm", ["npm_[A-Za-z0-9]{36}"]],
  ["PyPI", ["pypi-Ag[A-Za-z0-9_-]{40,}"]],
  ["Hugging Face", ["hf_[A-Za-z0-9]{30,}"]],
  ["SendGrid", ["SG\\.[A-Za-z0-9_-]{16,}\\.[A-Za-z0-9_-]{16,}"]],
  ["Twilio API key", ["SK[0-9a-fA-F]{32}"]],
  ["Mailgun", ["key-[0-9a-f]{32}"]],
  ["DigitalOcean", ["do[opr]_v1_[a-f0-9]{64}"]],
  ["Shopify", ["shp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}"]],
  [
    "Discord bot token",
    [
      "M[A-Za-z0-9_-]{23,27}\\.[A-Za-z0-9_-]{6}\\.[A-Za-z0-9_-]{27,40}",
      "N[A-Za-z0-9_-]{23,27}\\.[A-Za-z0-9_-]{6}\\.[A-Za-z0-9_-]{27,40}",
      "O[A-Za-z0-9_-]{23,27}\\.[A-Za-z0-9_-]{6}\\.[A-Za-z0-9_-]{27,40}",
    ],
  ],
  ["Vault", ["hv[sbr]\\.[A-Za-z0-9_-]{24,}"]],
  ["Docker Hub", ["dckr_(?:pat|oat)_[A-Za-z0-9_-]{20,}"]],
  ["Databricks", ["dapi[a-f0-9]{32}(?:-\\d+)?"]],
  ["Groq", ["gsk_[A-Za-z0-9]{40,}"]],
  ["Linear", ["lin_(?:api|oauth)_[A-Za-z0-9]{32,}"]],
  ["Atlassian", ["AT(?:ATT|CTT)[A-Za-z0-9_=-]{40,}"]],
  ["Bitbucket app password", ["ATBB[A-Za-z0-9]{28,}"]],
  ["Square", ["sq0(?:atp|csp|idp)-[A-Za-z0-9_-]{22,}", "EAAA[A-Za-z0-9_-]{60,}"]],
  ["Sentry auth token", ["sntry[su]_[A-Za-z0-9+/=_-]{40,}"]],
  ["age secret key", ["AGE-SECRET-KEY-1[0-9A-Z]{50,}"]],
  ["Heroku", ["HRKU-[A-Za-z0-9_-]{20,}"]],
  ["Postman", ["PMAK-[a-f0-9]{24}-[a-f0-9]{34}"]],
  ["Doppler", ["dp\\.(?:st|pt|ct|sa|scim|audit)\\.[A-Za-z0-9_.-]{30,}"]],
  ["Pulumi", ["pul-[a-f0-9]{40}"]],
  ["Tailscale", ["tskey-[a-z]+-[A-Za-z0-9_-]{10,}"]],
  ["Grafana", ["glsa_[A-Za-z0-9_]{32,}", "glc_[A-Za-z0-9+/=_-]{32,}"]],
  ["Notion", ["ntn_[A-Za-z0-9]{40,}", "secret_[A-Za-z0-9]{43}"]],
  ["Airtable", ["pat[A-Za-z0-9]{14}\\.[a-f0-9]{64}"]],
  ["Replicate", ["r8_[A-Za-z0-9]{37}"]],
  ["Perplexity", ["pplx-[A-Za-z0-9]{40,}"]],
  ["xAI", ["xai-[A-Za-z0-9]{60,}"]],
  // `sb_publishable_` is public.
  ["Supabase", ["sbp_(?:oauth_|v0_)?[A-Za-z0-9]{32,}", "sb_secret_[A-Za-z0-9_-]{20,}"]],
  // The account Secret Key is OP_SECRET_KEY_RE below.
  ["1Password", ["ops_eyJ[A-Za-z0-9_-]{40,}", "1PRK(?:-[A-Z0-9]{4}){13}"]],
  // The secret is paired, below.
  ["Alibaba Cloud", ["LTAI[A-Za-z0-9]{12,24}", "STS\\.[A-Za-z0-9]{20,}"]],
  ["Dropbox", ["sl\\.(?:[A-Za-z]\\.)?[A-Za-z0-9_=-]{40,}"]],
  ["NuGet", ["oy2[a-z0-9]{43}"]],
  ["Pinecone", ["pcsk_[A-Za-z0-9]{3,12}_[A-Za-z0-9]{30,}"]],
  ["Render", ["rnd_[A-Za-z0-9]{24,}"]],
  ["RubyGems", ["rubygems_[A-Za-z0-9]{40,}"]],
  ["PlanetScale", ["pscale_(?:tkn|pw|oauth)_[A-Za-z0-9_.-]{32,}"]],
  ["New Relic", ["NRAK-[A-Z0-9]{27}"]],
  ["Buildkite", ["bkua_[a-f0-9]{40}"]],
  ["Netlify", ["nfp_[A-Za-z0-9]{36}"]],
  ["Fly.io", ["fo1_[A-Za-z0-9_-]{40,}"]],
  ["Mapbox secret", ["sk\\.eyJ[A-Za-z0-9_-]{20,}\\.[A-Za-z0-9_-]{20,}"]],
  ["JWT", ["eyJ[A-Za-z0-9_-]{7,}\\.[A-Za-z0-9_-]{10,}\\.[A-Za-z0-9_-]{10,}"]],
];
// No literal first character: each found through a marker the scan looks for.
const SHAPED: readonly [family: string, pattern: string][] = [
  ["Terraform Cloud", "[A-Za-z0-9]{14}\\.atlasv1\\.[A-Za-z0-9_-]{60,}"],
  ["Azure AD client secret", "[A-Za-z0-9_~.-]{3}\\dQ~[A-Za-z0-9_~.-]{31,34}"],
  ["Dropbox long-lived", "[A-Za-z0-9_-]{11}AAAAAAAAAA[A-Za-z0-9_=-]{40,}"],
  ["FCM", "[A-Za-z0-9_-]{7,}:APA91b[A-Za-z0-9_-]{60,}"],
];

// One alternative per first character: the engine tries alternatives in turn at every word start.
function grouped(): string {
  const byFirst = new Map<string, string[]>();
  for (const [, patterns] of FAMILIES) {
    for (const p of patterns) byFirst.set(p[0], [...(byFirst.get(p[0]) ?? []), p.slice(1)]);
  }
  return [...byFirst].map(([first, rests]) => `${first}(?:${rests.join("|")})`).join("|");
}

// The built patterns are compiled on first use, not at load: compiling them cost every vx start about
// 2 ms of CPU, and most commands never redact.
let tokenRe: RegExp | undefined;
let shapedRe: RegExp | undefined;
let opSecretKeyRe: RegExp | undefined;
let uuidRes: { any: RegExp; line: RegExp } | undefined;

/** Global: callers reset `lastIndex` after `exec`. */
export function tokenRE(): RegExp {
  tokenRe ??= new RegExp(`(?<![A-Za-z0-9_-])(?:${grouped()})[A-Za-z0-9_-]*`, "g");
  return tokenRe;
}

function shapedRE(): RegExp {
  shapedRe ??= new RegExp(`(?<![A-Za-z0-9_-])(?:${SHAPED.map(([, p]) => p).join("|")})[A-Za-z0-9_-]*`, "g");
  return shapedRe;
}
export const SHAPED_MARKERS = [".atlasv1.", "Q~", "AAAAAAAAAA", ":APA91b"];

// A 1Password Secret Key, also as people copy and type it (lower case, a PDF's Unicode hyphens, spaces,
// no separator). A digit among the 32 tells it from a slug or a sentence.
const OP_SEP = "[-\\u2010\\u2011 ]";
const OP_GROUPS = `${OP_SEP}[A-Za-z0-9]{6}${OP_SEP}(?:[A-Za-z0-9]{6}${OP_SEP}[A-Za-z0-9]{5}|[A-Za-z0-9]{11})(?:${OP_SEP}[A-Za-z0-9]{5}){3}(?![A-Za-z0-9_\\u2010\\u2011-])`;
/** Global: callers reset `lastIndex` after `exec`. */
export function opSecretKeyRE(): RegExp {
  opSecretKeyRe ??= new RegExp(`(?<![A-Za-z0-9])[Aa]3(?=[A-Za-z0-9 \\u2010\\u2011-]{0,39}\\d)(?:${OP_GROUPS}|[A-Za-z0-9]{32}(?![A-Za-z0-9]))`, "g");
  return opSecretKeyRe;
}

// In API URLs it follows `/bot`.
const TELEGRAM_RE = /(?:(?<![A-Za-z0-9_-])|(?<=\/bot))\d{6,12}:AA[A-Za-z0-9_-]{30,}/g;

// Base64 `-----BEGIN` (kubeconfig); only private keys go, certificates are public.
const B64_PEM_RE = /(?<![A-Za-z0-9+/=])LS0tLS1CRUdJTi[A-Za-z0-9+/]{20,}={0,2}/g;

// An AWS (or Alibaba) secret has no marker of its own: taken only beside an access key id or its name.
const AWS_ID_RE = /(?<![A-Za-z0-9_-])(?:(?:AKIA|ASIA)[A-Z0-9]{16}|LTAI[A-Za-z0-9]{12,24})(?![A-Za-z0-9])/;
const AWS_SECRET_NAME_RE = /secret.?access.?key|access.?key.?secret/i;
const AWS_SECRET_RE = /(?<![A-Za-z0-9/+=])(?:[A-Za-z0-9/+]{40}|[A-Za-z0-9]{30})(?![A-Za-z0-9/+=])/g;

/** Before redaction, so its neighbours are searched too. */
export function hasAwsKeyId(line: string): boolean {
  return AWS_ID_RE.test(line);
}

export function replaceTokens(line: string): string {
  let s = line.replace(tokenRE(), SECRET);
  if (s.includes("3")) s = s.replace(opSecretKeyRE(), SECRET);
  if (SHAPED_MARKERS.some((m) => s.includes(m))) s = s.replace(shapedRE(), SECRET);
  if (s.includes(":AA")) s = s.replace(TELEGRAM_RE, SECRET);
  if (s.includes("LS0tLS1CRUdJTi")) s = s.replace(B64_PEM_RE, (m) => (decodesToPrivateKey(m) ? SECRET : m));
  return s;
}

/** `idNear`: an access key id is on this line or the one above. */
export function replaceAwsSecrets(line: string, idNear: boolean): string {
  if (!idNear && !AWS_SECRET_NAME_RE.test(line)) return line;
  return line.replace(AWS_SECRET_RE, (m) => (/[g-zG-Z/+]/.test(m) && /\d/.test(m) ? SECRET : m));
}

function decodesToPrivateKey(b64: string): boolean {
  const head = b64.slice(0, 64);
  try {
    return atob(head.slice(0, head.length - (head.length % 4))).includes("PRIVATE");
  } catch {
    return true;
  }
}

// Heroku and older Pinecone keys are bare UUIDs: taken beside the provider's name, or alone just below
// a Heroku token command (which prints warnings, then the key).
const UUID = "[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}";
function uuidREs(): { any: RegExp; line: RegExp } {
  uuidRes ??= { any: new RegExp(`(?<![A-Za-z0-9-])${UUID}(?![A-Za-z0-9-])`, "g"), line: new RegExp(`^[\\s│┃|⎿>]*${UUID}\\s*$`) };
  return uuidRes;
}
const UUID_CONTEXT_RE = /heroku|pinecone/i;
export const UUID_ABOVE_RE = /heroku\s+(?:auth:token|authorizations:create)|HEROKU_API_KEY/i;

export function replaceContextUuids(line: string, keyAbove: boolean): string {
  const re = uuidREs();
  if (keyAbove && re.line.test(line)) return line.replace(re.any, SECRET);
  return UUID_CONTEXT_RE.test(line) ? line.replace(re.any, SECRET) : line;
}

import { describe, expect, test } from "bun:test";
import { PRIVATE_KEY_BLOCK, SECRET, SENSITIVE_LINE, redact } from "../../src/redact";

type Row = { name: string; input: string; want: string };

const DROP = SENSITIVE_LINE;
const S = SECRET;
const same = (name: string, input: string): Row => ({ name, input, want: input });
const drop = (name: string, input: string): Row => ({ name, input, want: DROP });

// RED-05: the spec's test vectors, verbatim.
const specVectors: Row[] = [
  drop("RED-05 export OPENAI_API_KEY", "export OPENAI_API_KEY=sk-abc"),
  drop("RED-05 Authorization header", "Authorization: Bearer abc.def"),
  {
    name: "RED-05 URL credentials",
    input: "push to https://bob:hunter2@git.example.com/r.git",
    want: "push to https://[redacted-secret]@git.example.com/r.git",
  },
  { name: "RED-05 AWS key id", input: "id AKIAIOSFODNN7EXAMPLE ok", want: "id [redacted-secret] ok" },
  same("RED-05 task-runner sentence", "run the task-runner now"),
  same("RED-05 task-runner", "task-runner"),
  same("RED-05 disk-usage", "disk-usage"),
  same("RED-05 risk-free", "risk-free"),
  same("RED-05 monkey: banana", "monkey: banana"),
  same("RED-05 the api keys are rotated", "the api keys are rotated"),
];

const wholeLine: Row[] = [
  drop("vendor anthropic_", "ANTHROPIC_BASE_URL=https://api.example.com"),
  drop("vendor openai_", "using openai_org for billing"),
  drop("vendor azure_openai_", "AZURE_OPENAI_ENDPOINT is set"),
  drop("vendor google_api_key", "GOOGLE_API_KEY missing"),
  drop("vendor gemini_", "GEMINI_MODEL=pro"),
  drop("vendor claude_api", "claude_api call failed"),
  drop("vendor codex_", "CODEX_HOME points at ~/.codex"),
  drop("authorization anywhere", "curl -H 'authorization: x'"),
  drop("bearer then space", "token type is Bearer abc"),
  drop("bearer then tab", "Bearer\tabc"),
  same("bearer without whitespace after", "the bearers of bad news"),
  same("bearer at line end", "who is the bearer"),
  drop("private_key", "private_key = load()"),
  drop("private-key", "--private-key path"),
  drop("privatekey", "privateKey loaded"),
  same("private key with a space", "rotate the private key tomorrow"),
  drop("access_key", "aws_access_key_id is set"),
  drop("accessKey", "accessKey present"),
  drop("refresh-token", "got a refresh-token back"),
  same("refresh token with a space", "the refresh token expired"),
  drop("id_token", "decoded id_token fine"),
  drop("idtoken", "idToken cached"),
  drop("auth_token", "GH auth_token ok"),
  drop("api-key", "X-Api-Key header sent"),
  drop("apikey", "apikey missing"),
  drop("word token:", "token: abc123"),
  drop("word key=", "key=value"),
  drop("word SECRET with spaces", "SECRET = x"),
  drop("word auth: (known false positive by the grammar)", "Fix the auth: bug"),
  drop("word password:", "password:hunter2"),
  drop("word passwd =", "passwd = x"),
  drop("word key space colon", "  key : v"),
  drop("word after a dot", "db.password=1"),
  drop("word after a dash", "my-secret: x"),
  drop("quoted word in JSON", `{"token": "abc"}`),
  drop("single-quoted word", "{'password': 'x'}"),
  same("word after underscore", "my_secret: x"),
  same("keyboard: x", "keyboard: x"),
  same("tokens: count", "↑ 1.2k tokens: fine"),
  same("Passwords must match", "Passwords must match"),
  same("secretary: Alice", "secretary: Alice"),
  same("author: Bob", "author: Bob"),
  { name: "CRLF line keeps its CR", input: "token: x\r\nok\r", want: `${DROP}\r\nok\r` },
];

const pemBody = ["-----BEGIN RSA PRIVATE KEY-----", "MIIEowIBAAKCAQEA1b2c3d4e5f6g7h8i9j0kLmNoPqRsTuVwXyZ", "QWERTYUIOPASDFGHJKLZXCVBNM1234567890qwertyuiopasdf", "-----END RSA PRIVATE KEY-----"];
const pem: Row[] = [
  {
    name: "PEM block with text around",
    input: ["before", ...pemBody, "after"].join("\n"),
    want: ["before", PRIVATE_KEY_BLOCK, "after"].join("\n"),
  },
  {
    name: "PEM block unterminated runs to the end",
    input: ["before", ...pemBody.slice(0, 3), "more base64"].join("\n"),
    want: ["before", PRIVATE_KEY_BLOCK].join("\n"),
  },
  {
    name: "PEM OPENSSH block inside tool output",
    input: ["  ⎿  -----BEGIN OPENSSH PRIVATE KEY-----", "     b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ", "     -----END OPENSSH PRIVATE KEY-----", "⏺ Done"].join("\n"),
    want: [PRIVATE_KEY_BLOCK, "⏺ Done"].join("\n"),
  },
  {
    name: "PEM one-line block",
    input: 'key = "-----BEGIN PRIVATE KEY-----\\nMIIB\\n-----END PRIVATE KEY-----"\nnext',
    want: `${PRIVATE_KEY_BLOCK}\nnext`,
  },
  {
    name: "two PEM blocks",
    input: [...pemBody, "middle", ...pemBody].join("\n"),
    want: [PRIVATE_KEY_BLOCK, "middle", PRIVATE_KEY_BLOCK].join("\n"),
  },
  same("public key block untouched", "-----BEGIN PUBLIC KEY-----\nMIIBIjANBgkq\n-----END PUBLIC KEY-----"),
  same("certificate untouched", "-----BEGIN CERTIFICATE-----\nMIIDdzCCAl+g\n-----END CERTIFICATE-----"),
];

const inLine: Row[] = [
  { name: "sk- 16 chars", input: "use sk-abcdefghijklmnop here", want: `use ${S} here` },
  same("sk- 15 chars", "use sk-abcdefghijklmno here"),
  { name: "sk-proj with dashes", input: "(sk-proj-Ab_cd-EFghIJklMNop1234)", want: `(${S})` },
  same("sk- after a letter", "task-abcdefghijklmnopqrstu"),
  same("sk- after a dash", "x-sk-abcdefghijklmnopqrstu"),
  same("sk- after an underscore", "x_sk-abcdefghijklmnopqrstu"),
  { name: "sk- at line start", input: "sk-abcdefghijklmnopqrstu", want: S },
  { name: "ghp_", input: "ghp_abcdefghijklmnopqrstuvwxyz0123456789 pushed", want: `${S} pushed` },
  { name: "gho_", input: "tok gho_abcdefghijklmnopqrst", want: `tok ${S}` },
  { name: "ghu_ ghs_ ghr_", input: "ghu_abcdefghijklmnopqrst ghs_abcdefghijklmnopqrst ghr_abcdefghijklmnopqrst", want: `${S} ${S} ${S}` },
  same("ghp_ 19 chars", "ghp_abcdefghijklmnopqrs"),
  same("ghx_ not a GitHub prefix", "ghx_abcdefghijklmnopqrstuvwxyz"),
  {
    name: "GITHUB_TOKEN= keeps the name (underscore before token)",
    input: "GITHUB_TOKEN=ghp_abcdefghijklmnopqrstuvwxyz0123456789",
    want: `GITHUB_TOKEN=${S}`,
  },
  { name: "glpat-", input: "glpat-abcdefghij-KLMNOPQRST", want: S },
  same("glpat- too short", "glpat-abc"),
  { name: "xoxb-", input: "slack xoxb-1234567890-abcdef", want: `slack ${S}` },
  { name: "xoxp-", input: "xoxp-1234567890", want: S },
  { name: "xoxa-", input: "xoxa-2-1234567890-abcdef", want: S },
  { name: "xoxr-", input: "refresh xoxr-1234567890-abc", want: `refresh ${S}` },
  { name: "xoxs-", input: "xoxs-1234567890-session", want: S },
  same("xoxz- not slack", "xoxz-1234567890"),
  { name: "ASIA", input: "ASIAIOSFODNN7EXAMPLE", want: S },
  { name: "AKIA glued tail goes too", input: "AKIAIOSFODNN7EXAMPLEXYZ!", want: `${S}!` },
  same("AKIA too short", "AKIAIOSFODNN7"),
  same("AKIA lower case body", "AKIAiosfodnn7example"),
  same("AKIA inside a word", "XAKIAIOSFODNN7EXAMPLE"),
  { name: "AIza", input: "key AIzaSyA-abcdefghijklmnopqrstuvwxyz01234 ok", want: `key ${S} ok` },
  same("AIza too short", "AIzaSyA-abc"),
  { name: "npm_", input: "npm_abcdefghijklmnopqrstuvwxyz0123456789", want: S },
  same("npm_ too short", "npm_install_script"),
  {
    name: "JWT",
    input: "jwt=eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U;",
    want: `jwt=${S};`,
  },
  same("JWT segment too short", "eyJhbGciOiJ9.abc.def"),
  same("eyJ without dots", "eyJhbGciOiJIUzI1NiJ9"),
  {
    name: "postgres URL credentials",
    input: "DATABASE at postgres://app:s3cr3t@db.internal:5432/app",
    want: `DATABASE at postgres://${S}@db.internal:5432/app`,
  },
  { name: "URL with empty user", input: "https://:tok@host/x", want: `https://${S}@host/x` },
  { name: "URL password with colon", input: "git+ssh://u:p:q@h/r", want: `git+ssh://${S}@h/r` },
  {
    name: "URL user is a token",
    input: "https://ghp_abcdefghijklmnopqrstuvwxyz0123:x-oauth-basic@github.com/o/r",
    want: `https://${S}@github.com/o/r`,
  },
  same("URL with user only", "ssh://git@github.com/o/r.git"),
  same("URL with port, no credentials", "http://localhost:8080/a@b"),
  same("scp-style git remote", "git@github.com:owner/repo.git"),
  {
    name: "several tokens on one line",
    input: "a sk-abcdefghijklmnopqr, b xoxb-1234567890 c",
    want: `a ${S}, b ${S} c`,
  },
];

const placeholders: Row[] = [
  same("sensitive line placeholder", SENSITIVE_LINE),
  same("private key placeholder", PRIVATE_KEY_BLOCK),
  same("secret placeholder", SECRET),
  same("secret placeholder in context", `x ${SECRET}: y ${SECRET}=z`),
  same("URL placeholder", `https://${SECRET}@git.example.com/r.git`),
  same("empty text", ""),
  same("blank lines kept", "a\n\n\nb\n"),
];

const allRows = [...specVectors, ...wholeLine, ...pem, ...inLine, ...placeholders];

describe("redact", () => {
  test.each(allRows)("$name", ({ input, want }) => {
    expect(redact(input)).toBe(want);
  });

  test.each(allRows)("idempotent: $name", ({ input }) => {
    const once = redact(input);
    expect(redact(once)).toBe(once);
  });

  test("idempotent over every row joined into one transcript", () => {
    const text = allRows.map((r) => r.input).join("\n");
    const once = redact(text);
    expect(redact(once)).toBe(once);
  });

  test("tokens glued together stay a fixed point", () => {
    const input = "AKIAAAAAAAAAAAAAAAAAAKIAXXXXXXXXXXXXXXXX sk-aaaaaaaaaaaaaaaaaaaa.eyJaaaaaaaaaa.bbbbbbbbbb.cccccccccc";
    const once = redact(input);
    expect(once).toBe(`${S} ${S}.${S}`);
    expect(redact(once)).toBe(once);
  });
});

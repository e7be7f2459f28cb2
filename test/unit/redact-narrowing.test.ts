// Issue 9 item 3: RED-02's bare-word rule (`token key secret auth password passwd` before `=` or `:`)
// no longer drops a line when what follows is code. Each exemption is tested both ways: the code
// shape survives, and a literal in the same place is still dropped. The assignment rules share the
// same judgement and keep the name, replacing only the value.
import { describe, expect, test } from "bun:test";
import { SECRET, SENSITIVE_LINE, redact } from "../../src/redact";

type Row = { why: string; code: string; literal: string };

const rows: Row[] = [
  { why: "nothing follows (a block or a parent key)", code: "    if auth:", literal: "    auth: s3cr3t-value" },
  { why: "an opened structure", code: "  auth: {", literal: "  auth: {user: bob, pass: hunter22}" },
  { why: "an empty string", code: '  "password": "",', literal: '  "password": "hunter22",' },
  { why: "null, a boolean", code: "    token = None", literal: "    token = Nonesuch99" },
  { why: "a shell reference", code: "key=${x}", literal: "key=${x:-hunter22}" },
  { why: "a CI expression", code: "  token: ${{ secrets.NPM_TOKEN }}", literal: "  token: npm-ci-2024" },
  { why: "command substitution", code: 'token="$(cat ~/.token)"', literal: 'token="cat-token-2024"' },
  { why: "a placeholder", code: "token: <your-token>", literal: "token: your-token-2024" },
  { why: "a masked value", code: "password: ********", literal: "password: p*ssw0rd" },
  { why: "a call", code: "    key = foo(bar)", literal: "    key = foobar99" },
  { why: "a member access", code: "  token: args.token,", literal: "  token: abc123,def" },
  { why: "a variable in a list", code: "  { token: sid, expiresAt: 1 }", literal: "  { token: s1d, expiresAt: 1 }" },
  { why: "the field's own name", code: "    self.token = token", literal: "    self.token = token99" },
  { why: "a secret's field name", code: "                  key: password", literal: "                  key: passw0rd" },
  { why: "a primitive type", code: "  token: string;", literal: "  token: strings1" },
  { why: "a class type before punctuation", code: "  token: Token;", literal: "  token: Token" },
  { why: "a type with a default of None", code: "    password: Optional[str] = None", literal: '    password: Optional[str] = "hunter22"' },
  { why: "a Rust reference type", code: "    pub fn get(&self, key: &str) -> Option<Vec<u8>> {", literal: '    let key: &str = "hunter22";' },
  { why: "keyof", code: "  key: keyof T & string;", literal: "  key: keyhole22 & string;" },
  { why: "a JSX expression", code: "      <tr key={row.id}>", literal: '      <tr key={"k3y-hunter22"}>' },
  { why: "a quoted field name for `key`", code: '  { key: "startedAt", title: "Started" },', literal: '  { key: "st4rtedAt9x", title: "Started" },' },
  { why: "a comparison with a word", code: '    if (e.key === "ArrowDown") {', literal: '    if (token == "abc123def456ghi") {' },
  { why: "a module path", code: "use crate::auth::session::Store;", literal: "use crate; auth: hunter22" },
  { why: "a file path", code: "password: /run/secrets/db_password", literal: "password: /hunter22" },
  { why: "a SQL parameter", code: "WHERE token = $1 AND key = :key", literal: "WHERE token = 'abc' AND key = :key" },
  { why: "a comment", code: "  password: # set by the operator", literal: "  password: hunter22 # set by the operator" },
];

describe("bare words before code survive", () => {
  test.each(rows)("$why: $code", ({ code }) => {
    expect(redact(code)).toBe(code);
  });
  test.each(rows)("$why, but a literal is dropped: $literal", ({ literal }) => {
    expect(redact(literal)).not.toContain("hunter22");
    expect(redact(literal)).not.toBe(literal);
  });
});

describe("SPEC section 15 still holds", () => {
  test.each([
    ["export OPENAI_API_KEY=sk-abc", SENSITIVE_LINE],
    ["Authorization: Bearer abc.def", SENSITIVE_LINE],
    ["push to https://bob:hunter2@git.example.com/r.git", `push to https://${SECRET}@git.example.com/r.git`],
    ["id AKIAIOSFODNN7EXAMPLE ok", `id ${SECRET} ok`],
    ["key=value", SENSITIVE_LINE],
    ["passwd = x", SENSITIVE_LINE],
    ["Fix the auth: bug", SENSITIVE_LINE],
  ])("%s", (input, want) => {
    expect(redact(input)).toBe(want);
  });
  test.each(["run the task-runner now", "task-runner", "disk-usage", "risk-free", "monkey: banana", "the api keys are rotated"])("%s unchanged", (s) => {
    expect(redact(s)).toBe(s);
  });
});

describe("assignments keep the name and lose the value", () => {
  test.each([
    ["DB_PASSWORD=hunter22 ./run", `DB_PASSWORD=${SECRET} ./run`],
    ["SECRET_KEY = 'django-insecure-abc123'", `SECRET_KEY = '${SECRET}'`],
    ["client_secret: abc123def456", `client_secret: ${SECRET}`],
    ['  "dbPassword": "hunter22",', `  "dbPassword": "${SECRET}",`],
    ["--db_password=hunter22 --host db", `--db_password=${SECRET} --host db`],
    ["ENV ADMIN_PASSWORD hunter22", `ENV ADMIN_PASSWORD ${SECRET}`],
    ["AccountName=a;AccountKey=abc123DEF456ghi789==;EndpointSuffix=core.windows.net", `AccountName=a;AccountKey=${SECRET};EndpointSuffix=core.windows.net`],
    ["vault-tool login --password hunter22", `vault-tool login --password ${SECRET}`],
    ["mysql -u root -phunter22 app", `mysql -u root -p${SECRET} app`],
    ["curl -u admin:hunter22 https://ci", `curl -u ${SECRET} https://ci`],
    ["machine api.example.com login bob password hunter22", `machine api.example.com login bob password ${SECRET}`],
  ])("%s", (input, want) => {
    expect(redact(input)).toBe(want);
    expect(redact(want)).toBe(want);
  });

  test.each([
    "SKIP_AUTH=1 bun test", // one character is a switch
    "STRIPE_PUBLISHABLE_KEY=pk_test_abc123", // public by name
    "cache_key = user42", // `key` needs a random-looking value unless the name is an environment name
    'if [[ -z "${REGISTRY_TOKEN:-}" ]]; then', // a reference with an empty default
    "-- name: TouchToken :exec", // a spaced colon is an annotation
    "printf x | docker login --username ci --password-stdin", // no value
    "  --token string   GitHub token", // a help line's type
    "mysql -u root -p app", // `-p` then a space prompts; `app` is the database
  ])("%s unchanged", (s) => {
    expect(redact(s)).toBe(s);
  });

  test("a CRLF line keeps its CR", () => {
    expect(redact("DB_PASSWORD=hunter22\r\nok\r")).toBe(`DB_PASSWORD=${SECRET}\r\nok\r`);
  });

  test("a block scalar under a secret name loses its lines, not its neighbours", () => {
    const text = ["stringData:", "  db_password: |", "    hunter22", "    second-line", "  user: app"].join("\n");
    expect(redact(text)).toBe(["stringData:", "  db_password: |", `    ${SECRET}`, `    ${SECRET}`, "  user: app"].join("\n"));
  });
});

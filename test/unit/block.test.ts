import { describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { type BlockLang, MalformedBlockError, addClaudeImport, blockState, bodyHash, detectLang, hasClaudeImport, renderBlock, repairBlock, upsertBlock } from "../../src/scaffold/block";

const EN = renderBlock("en");
const ES = renderBlock("es");
const BEGIN = /^<!-- BEGIN VEXILLUM v:1 hash:([0-9a-f]{8}) -->\n/;
const END = "<!-- END VEXILLUM -->\n";

function bodyOf(block: string): string {
  return block.replace(BEGIN, "").slice(0, -END.length);
}

/** A block whose marker hash matches its body, as an older template would be written. */
function blockWithBody(body: string, hash = bodyHash(body)): string {
  return `<!-- BEGIN VEXILLUM v:1 hash:${hash} -->\n${body}${END}`;
}

const SPANISH_PROSE =
  "# Proyecto\n\nEste repositorio contiene el código del servidor. Para correr las pruebas, usá el script " +
  "que está en la carpeta de herramientas y revisá que todo pase antes de hacer un commit. Las decisiones " +
  "de diseño se documentan en la wiki, y cada cambio grande necesita una revisión de otra persona del equipo.\n";
const ENGLISH_PROSE =
  "# Project\n\nThis repository holds the server code. To run the tests, use the script in the tools " +
  "folder and make sure everything passes before you commit. Design decisions are documented in the wiki, " +
  "and every large change needs a review from another person on the team.\n";

describe("renderBlock", () => {
  test.each(["en", "es"] as const)("%s: markers, hash over the body, trailing newline", (lang) => {
    const block = renderBlock(lang);
    const hash = BEGIN.exec(block)?.[1];
    expect(hash).toBeDefined();
    expect(block.endsWith(END)).toBe(true);
    const body = bodyOf(block);
    expect(body.endsWith("\n")).toBe(true);
    expect(hash).toBe(createHash("sha256").update(body).digest("hex").slice(0, 8));
    const lines = block.trimEnd().split("\n").length;
    expect(lines).toBeGreaterThanOrEqual(25);
    expect(lines).toBeLessThanOrEqual(50);
  });

  test("the two languages hash differently", () => {
    expect(BEGIN.exec(EN)?.[1]).not.toBe(BEGIN.exec(ES)?.[1]);
  });

  // SCF-04: the content every block must cover, in both languages.
  test.each(["en", "es"] as const)("%s: covers SCF-04", (lang) => {
    const block = renderBlock(lang);
    for (const word of ["general", "commander", "soldier", "mission", "scout", "camp", "sentinel", "wake"]) {
      expect(block).toContain(`**${word}**`);
    }
    const skill = lang === "en" ? "`vexillum` skill" : "skill `vexillum`";
    for (const text of ["`vx dispatch`", skill, "`unconfirmed`", "`vx status`"]) {
      expect(block).toContain(text);
    }
  });

  // Issue 19: landing many missions in the order that costs the fewest rebase round trips (its text before issue 28).
  const LANDING_RULE_19 = {
    en: "- Several missions to land: land first the one that overlaps the fewest others (`vx status` shows\n  each mission's overlaps); after each landing, prompt every mission it names as diverged to rebase,\n  all in the same turn.\n",
    es: "- Varias missions para aterrizar: hacé land primero de la que se superpone con menos otras\n  (`vx status` muestra los overlaps de cada mission); después de cada land, mandá un `vx prompt`\n  de rebase a cada mission que nombre como diverged, todas en el mismo turno.\n",
  } as const;

  // Issue 28: land rebases a clean diverged mission itself; only the refused ones need a prompt.
  const LANDING_RULE = {
    en: "- Several missions to land: land first the one that overlaps the fewest others (`vx status` shows\n  each mission's overlaps), or `vx land --all`; land rebases a clean diverged mission itself, so prompt\n  to rebase only the missions it refuses (a conflict), all in the same turn.\n",
    es: "- Varias missions para aterrizar: hacé land primero de la que se superpone con menos otras\n  (`vx status` muestra los overlaps de cada mission), o `vx land --all`; land hace rebase él mismo de\n  una mission diverged limpia, así que mandá un `vx prompt` de rebase solo a las que rechace (un\n  conflicto), todas en el mismo turno.\n",
  } as const;

  test.each(["en", "es"] as const)("%s: teaches land's own rebase, and the block before it reads as stale in its language", (lang) => {
    const block = renderBlock(lang);
    expect(block).toContain(LANDING_RULE[lang]);
    const before = bodyOf(block).replace(FORUM_RULE[lang], FORUM_RULE_18[lang]).replace(LANDING_RULE[lang], LANDING_RULE_19[lang]);
    expect(bodyHash(before)).toBe(lang === "en" ? "750210ac" : "a26c8d59");
    expect(blockState(blockWithBody(before))).toEqual({ state: "stale", lang });
  });

  // Issue 17: resume over redispatch when the camp holds work (CMD-RESUME-03).
  const RESUME_RULE = {
    en: "- An `interrupted` soldier whose camp holds work: `vx resume <task-id>` (it keeps the work), not\n  `vx redispatch` (it discards it).\n",
    es: "- Un soldier `interrupted` cuyo camp tiene trabajo: `vx resume <task-id>` (conserva el trabajo),\n  no `vx redispatch` (lo descarta).\n",
  } as const;

  test.each(["en", "es"] as const)("%s: teaches resume over redispatch, and the block before it reads as stale in its language", (lang) => {
    const block = renderBlock(lang);
    expect(block).toContain(RESUME_RULE[lang]);
    const before = bodyOf(block).replace(FORUM_RULE[lang], "").replace(RESUME_RULE[lang], "").replace(LANDING_RULE[lang], LANDING_RULE_19[lang]);
    expect(bodyHash(before)).toBe(lang === "en" ? "51ed6073" : "d7b98be6");
    expect(blockState(blockWithBody(before))).toEqual({ state: "stale", lang });
  });

  test.each(["en", "es"] as const)("%s: teaches the landing order, and the block before it reads as stale in its language", (lang) => {
    const block = renderBlock(lang);
    expect(block).toContain(LANDING_RULE[lang]);
    const before = bodyOf(block).replace(FORUM_RULE[lang], "").replace(RESUME_RULE[lang], "").replace(LANDING_RULE[lang], "");
    expect(bodyHash(before)).toBe(lang === "en" ? "30521cb0" : "f38888c2");
    expect(blockState(blockWithBody(before))).toEqual({ state: "stale", lang });
  });

  // Issue 18: when to open a forum review, and how to answer it (as it was before the board could be answered).
  const FORUM_RULE_18 = {
    en: "- To show the general something to read or approve (a plan, a diagram, a report), open a review\n  with `vx forum <file>` and give them the URL it prints. Answer their feedback with\n  `vx forum reply <file> <text...>`; acknowledge feedback you act on without a reply with\n  `vx forum inbox --ack <uid>`.\n",
    es: "- Para mostrarle al general algo que tiene que leer o aprobar (un plan, un diagrama, un reporte),\n  abrí una revisión con `vx forum <file>` y pasale la URL que imprime. Respondé su feedback con\n  `vx forum reply <file> <text...>`; el feedback sobre el que actuás sin responder, confirmalo con\n  `vx forum inbox --ack <uid>`.\n",
  } as const;

  // Issue 28: the board's conversation is answered with vx forum reply board.
  const FORUM_RULE = {
    en: "- To show the general something to read or approve (a plan, a diagram, a report), open a review\n  with `vx forum <file>` and give them the URL it prints. Answer their feedback with\n  `vx forum reply <file> <text...>`, and a message from the board with\n  `vx forum reply board <text...>`; acknowledge feedback you act on without a reply with\n  `vx forum inbox --ack <uid>`.\n",
    es: "- Para mostrarle al general algo que tiene que leer o aprobar (un plan, un diagrama, un reporte),\n  abrí una revisión con `vx forum <file>` y pasale la URL que imprime. Respondé su feedback con\n  `vx forum reply <file> <text...>`, y un mensaje del board con\n  `vx forum reply board <text...>`; el feedback sobre el que actuás sin responder, confirmalo con\n  `vx forum inbox --ack <uid>`.\n",
  } as const;

  test.each(["en", "es"] as const)("%s: teaches answering the board, and the block before it reads as stale in its language", (lang) => {
    const block = renderBlock(lang);
    expect(block).toContain(FORUM_RULE[lang]);
    const before = bodyOf(block).replace(FORUM_RULE[lang], FORUM_RULE_18[lang]);
    expect(bodyHash(before)).toBe(lang === "en" ? "526bbf85" : "492b1a3a");
    expect(blockState(blockWithBody(before))).toEqual({ state: "stale", lang });
  });

  test.each(["en", "es"] as const)("%s: teaches forum reviews, and the block before it reads as stale in its language", (lang) => {
    const block = renderBlock(lang);
    expect(block).toContain(FORUM_RULE[lang]);
    const before = bodyOf(block).replace(FORUM_RULE[lang], "").replace(RESUME_RULE[lang], "").replace(LANDING_RULE[lang], LANDING_RULE_19[lang]);
    expect(bodyHash(before)).toBe(lang === "en" ? "51ed6073" : "d7b98be6");
    expect(blockState(blockWithBody(before))).toEqual({ state: "stale", lang });
  });

  test("en: role check, authority, harness tool, one commander, unconfirmed note", () => {
    expect(EN).toContain("If you are a soldier working inside a camp");
    expect(EN).toContain("never run `vx dispatch`");
    expect(EN).toContain("The general's explicit instruction overrides any rule here");
    expect(EN).toContain("never with your harness's own sub-agent or task tool");
    expect(EN).toContain("Load the `vexillum` skill before dispatching, landing, striking or handling a wake");
    expect(EN).toContain("Keep one commander per project");
    expect(EN).toContain("Take that note as the explanation");
  });

  test("es: Spanish prose with the English vocabulary", () => {
    expect(ES).toContain("Si sos un soldier trabajando dentro de un camp");
    expect(ES).toContain("nunca corras `vx dispatch`");
    expect(ES).toContain("Una instrucción explícita del general manda sobre cualquier regla");
    expect(ES).toContain("nunca con la herramienta de sub-agentes");
    expect(ES).toContain("Cargá la skill `vexillum` antes de despachar");
    expect(ES).toContain("Mantené un commander por proyecto");
    expect(ES).toContain("Tomá esa nota como la explicación");
  });
});

describe("blockState", () => {
  const oldBody = "## Vexillum commander\n\nAn older template.\n";
  const cases: Array<[string, string, { state: string; lang?: BlockLang }]> = [
    ["empty file", "", { state: "absent" }],
    ["no block", ENGLISH_PROSE, { state: "absent" }],
    ["current en", EN, { state: "current", lang: "en" }],
    ["current es", ES, { state: "current", lang: "es" }],
    ["current en inside prose", `${SPANISH_PROSE}\n${EN}\nMore.\n`, { state: "current", lang: "en" }],
    ["current with CRLF line ends", EN.replace(/\n/g, "\r\n"), { state: "current", lang: "en" }],
    ["current with indented markers", EN.replace("<!-- END", "  <!-- END"), { state: "current", lang: "en" }],
    ["stale (older template)", blockWithBody(oldBody), { state: "stale", lang: "en" }],
    ["stale Spanish template", blockWithBody(bodyOf(ES).replace("Reglas:", "Reglas viejas:")), { state: "stale", lang: "es" }],
    ["drifted (edited by hand)", EN.replace("Report to the general plainly", "Report to the boss plainly"), { state: "drifted", lang: "en" }],
    ["drifted Spanish", ES.replace("Reglas:", "Reglas mías:"), { state: "drifted", lang: "es" }],
    ["drifted, body emptied", blockWithBody("", "0000abcd"), { state: "drifted" }],
    ["two BEGINs", `${EN.split("\n")[0]}\n${EN}`, { state: "malformed" }],
    ["BEGIN without END", EN.replace(END, ""), { state: "malformed" }],
    ["END without BEGIN", `text\n${END}`, { state: "malformed" }],
    ["END before BEGIN", `${END}${EN.replace(END, "")}`, { state: "malformed" }],
    ["two blocks", `${EN}\n${ES}`, { state: "malformed" }],
    ["unreadable BEGIN line", EN.replace(/ hash:[0-9a-f]{8}/, ""), { state: "malformed" }],
    ["another format version", EN.replace("v:1", "v:2"), { state: "malformed" }],
  ];
  test.each(cases)("%s", (_name, text, want) => {
    expect(blockState(text)).toEqual(want as ReturnType<typeof blockState>);
  });

  test("a marker mentioned inside a line is not a marker", () => {
    expect(blockState("Use `<!-- END VEXILLUM -->` to close it.\n")).toEqual({ state: "absent" });
  });
});

describe("upsertBlock", () => {
  test.each([
    ["empty file", "", EN],
    ["no trailing newline", "# Title", `# Title\n\n${EN}`],
    ["one trailing newline", "# Title\n", `# Title\n\n${EN}`],
    ["already a blank line", "# Title\n\n", `# Title\n\n${EN}`],
    ["two blank lines kept", "# Title\n\n\n", `# Title\n\n\n${EN}`],
  ])("appends: %s", (_name, input, want) => {
    expect(upsertBlock(input, "en")).toBe(want);
  });

  test("replaces a stale block in place, every other byte kept", () => {
    const before = "# Title\r\nSome  text with trailing spaces   \n\n";
    const after = "\n## After\nkeep me\n\n\n";
    const stale = blockWithBody("## Vexillum commander\n\nold\n");
    const out = upsertBlock(before + stale + after, "en");
    expect(out).toBe(before + EN + after);
  });

  test("switches language in place", () => {
    expect(upsertBlock(`x\n\n${EN}y\n`, "es")).toBe(`x\n\n${ES}y\n`);
  });

  test("keeps a missing newline after the END marker", () => {
    const stale = blockWithBody("old\n").trimEnd();
    expect(upsertBlock(`a\n${stale}`, "en")).toBe(`a\n${EN.trimEnd()}`);
  });

  test.each([
    ["empty", ""],
    ["prose", SPANISH_PROSE],
    ["current", `${ENGLISH_PROSE}\n${EN}`],
    ["stale in the middle", `a\n${blockWithBody("old\n")}b\n`],
    ["drifted", EN.replace("plainly", "clearly")],
  ])("idempotent: %s", (_name, input) => {
    for (const lang of ["en", "es"] as const) {
      const once = upsertBlock(input, lang);
      expect(upsertBlock(once, lang)).toBe(once);
      expect(blockState(once)).toEqual({ state: "current", lang });
    }
  });

  test("a CRLF file gets a CRLF block that reads as current", () => {
    const crlf = "# Title\r\n\r\nText.\r\n";
    const out = upsertBlock(crlf, "en");
    expect(out).toBe(`${crlf}\r\n${EN.replace(/\n/g, "\r\n")}`);
    expect(blockState(out)).toEqual({ state: "current", lang: "en" });
    expect(upsertBlock(out, "en")).toBe(out);
  });

  test("refuses a malformed block", () => {
    expect(() => upsertBlock(`${EN}${EN}`, "en")).toThrow(MalformedBlockError);
  });
});

describe("repairBlock", () => {
  test("two BEGINs: lone marker dropped, the block rebuilt in place, text around kept", () => {
    const begin = EN.split("\n")[0];
    const input = `# Title\n${begin}\nkept line\n${blockWithBody("old\n")}tail\n`;
    const out = repairBlock(input, "en");
    expect(out).toBe(`# Title\n${EN}kept line\ntail\n`);
    expect(blockState(out)).toEqual({ state: "current", lang: "en" });
  });

  test("BEGIN without END keeps the text after it", () => {
    const out = repairBlock(`a\n${EN.replace(END, "")}b\n`, "es");
    expect(blockState(out).state).toBe("current");
    expect(out.startsWith(`a\n${ES}`)).toBe(true);
    expect(out.endsWith("b\n")).toBe(true);
  });
});

describe("detectLang", () => {
  test.each([
    ["Spanish prose", SPANISH_PROSE, "es"],
    ["English prose", ENGLISH_PROSE, "en"],
    ["too little text", "# Notas\n\nHola mundo.\n", undefined],
    ["empty", "", undefined],
    ["a command list with no prose", `${"- `bun test` `bun run build` `bun x tsc`\n".repeat(10)}`, undefined],
    ["Spanish prose with English code", `${SPANISH_PROSE}\n\`\`\`ts\n// the function that is used for all of the things in the app\nexport const theValue = 1;\n\`\`\`\n`, "es"],
    ["English prose with a Spanish name", `${ENGLISH_PROSE}\nOur office is in Los Angeles, near the Plaza de la Raza.\n`, "en"],
    ["only the Spanish block", ES, "es"],
    ["English prose around a Spanish block (the block keeps its language)", `${ENGLISH_PROSE}\n${ES}`, "es"],
    ["Spanish prose with a drifted block of unreadable language", `${SPANISH_PROSE}\n${blockWithBody("x\n", "00000000")}`, "es"],
  ])("%s", (_name, text, want) => {
    expect(detectLang(text)).toBe(want as BlockLang | undefined);
  });
});

describe("CLAUDE.md import", () => {
  test.each([
    ["empty", "", false],
    ["the import line", "@AGENTS.md\n", true],
    ["relative form", "# Notes\n@./AGENTS.md\n", true],
    ["inline", "See @AGENTS.md for the rules.\n", true],
    ["inside a code fence", "```\n@AGENTS.md\n```\n", false],
    ["inside inline code", "Write `@AGENTS.md` to import it.\n", false],
    ["another file", "@AGENTS.md.bak\n@docs/AGENTS.md\n", false],
    ["email-like", "mail me@AGENTS.md\n", false],
  ])("hasClaudeImport: %s", (_name, text, want) => {
    expect(hasClaudeImport(text)).toBe(want);
  });

  test.each([
    ["empty file", "", "@AGENTS.md\n"],
    ["prose", "# Notes\nBe nice.\n", "# Notes\nBe nice.\n\n@AGENTS.md\n"],
    ["no trailing newline", "# Notes", "# Notes\n\n@AGENTS.md\n"],
    ["already imported", "@AGENTS.md\n# Notes\n", "@AGENTS.md\n# Notes\n"],
    ["CRLF", "# Notes\r\n", "# Notes\r\n\r\n@AGENTS.md\r\n"],
  ])("addClaudeImport: %s", (_name, text, want) => {
    const out = addClaudeImport(text);
    expect(out).toBe(want);
    expect(addClaudeImport(out)).toBe(out);
    expect(hasClaudeImport(out)).toBe(true);
  });
});

// Lines of TypeScript under a directory (default src/) and the share that is comment: issue 26's
// figure (the best TypeScript CLIs sit near 12 %). Run: bun scripts/source-stats.ts [dir]
import { readFileSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import ts from "typescript";

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return files(path);
    return path.endsWith(".ts") ? [path] : [];
  });
}

/** Lines of `text` that hold a comment and no code: comment ranges found from the syntax tree, so `//` in a string is code. */
function commentLines(text: string): { lines: number; comment: number; blank: number } {
  const source = ts.createSourceFile("x.ts", text, ts.ScriptTarget.Latest, false);
  const isComment = new Uint8Array(text.length);
  const seen = new Set<number>();
  const mark = (ranges: ts.CommentRange[] | undefined) => {
    for (const r of ranges ?? []) {
      if (seen.has(r.pos)) continue;
      seen.add(r.pos);
      isComment.fill(1, r.pos, r.end);
    }
  };
  const visit = (node: ts.Node): void => {
    mark(ts.getLeadingCommentRanges(text, node.pos));
    mark(ts.getTrailingCommentRanges(text, node.end));
    ts.forEachChild(node, visit);
  };
  visit(source);
  mark(ts.getLeadingCommentRanges(text, source.endOfFileToken.pos));
  let comment = 0;
  let blank = 0;
  let start = 0;
  const all = text.split("\n");
  for (const line of all) {
    let code = false;
    let any = false;
    for (let i = 0; i < line.length; i++) {
      if (/\s/.test(line[i])) continue;
      any = true;
      if (!isComment[start + i]) code = true;
    }
    if (!any) blank++;
    else if (!code) comment++;
    start += line.length + 1;
  }
  return { lines: all.length, comment, blank };
}

const dir = process.argv[2] ?? "src";
let lines = 0;
let comment = 0;
let blank = 0;
const list = files(dir);
for (const file of list) {
  const c = commentLines(readFileSync(file, "utf8"));
  lines += c.lines;
  comment += c.comment;
  blank += c.blank;
}
const share = (100 * comment) / (lines - blank);
console.log(`${dir}: ${list.length} files, ${lines} lines (${lines - blank} not blank), ${comment} comment lines: ${share.toFixed(1)} % of non-blank lines`);

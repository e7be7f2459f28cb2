// A hand-edited block against the current one (SCF-08): `-` theirs, `+` current, long unchanged runs shortened.

const CONTEXT = 2;

/** Longest-common-subsequence edit script over lines; blocks are short, so O(n·m) is fine. */
function script(a: string[], b: string[]): Array<[" " | "-" | "+", string]> {
  const n = a.length;
  const m = b.length;
  const lcs: number[][] = Array.from({ length: n + 1 }, () => new Array<number>(m + 1).fill(0));
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      lcs[i][j] = a[i] === b[j] ? lcs[i + 1][j + 1] + 1 : Math.max(lcs[i + 1][j], lcs[i][j + 1]);
    }
  }
  const out: Array<[" " | "-" | "+", string]> = [];
  let i = 0;
  let j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && a[i] === b[j]) {
      out.push([" ", a[i++]]);
      j++;
    } else if (i < n && (j >= m || lcs[i + 1][j] >= lcs[i][j + 1])) {
      out.push(["-", a[i++]]);
    } else {
      out.push(["+", b[j++]]);
    }
  }
  return out;
}

/** `--- <fromLabel>` / `+++ <toLabel>` then the changed lines with a little context; "" when equal. */
export function lineDiff(from: string, to: string, fromLabel: string, toLabel: string): string {
  const lines = (t: string) => t.replace(/\r\n/g, "\n").replace(/\n$/, "").split("\n");
  const ops = script(lines(from), lines(to));
  if (ops.every(([op]) => op === " ")) return "";
  const keep = ops.map(([op], k) => op !== " " || ops.slice(Math.max(0, k - CONTEXT), k + CONTEXT + 1).some(([o]) => o !== " "));
  const out = [`--- ${fromLabel}`, `+++ ${toLabel}`];
  let skipped = false;
  ops.forEach(([op, text], k) => {
    if (keep[k]) {
      out.push(`${op} ${text}`);
      skipped = false;
    } else if (!skipped) {
      out.push("  ...");
      skipped = true;
    }
  });
  return `${out.join("\n")}\n`;
}

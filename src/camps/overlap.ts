// Landing many missions (TSK-11, CMD-LAND-03): `vx land` fast-forwards, so after one lands the others need a rebase (land's own when clean); per
// mission this says whether it fast-forwards, merges cleanly, and which missions touch the same files. `vx status` runs it, so
// per base it costs one `rev-parse`, then one `diff-tree --stdin` and one `merge-tree --stdin`; nothing without a leased mission.
import type { Exec } from "../exec";
import type { Task } from "../state/schemas";
import { type Divergence, type MergeForecast, branchesNotMerged, changedFiles, divergence, mergeForecast, mergeForecasts } from "./git-batch";

/** A mission in flight: its camp leased, its branch and base recorded. */
type MissionRef = { id: string; branch: string; base: string };

export type MissionLanding = MissionRef &
  MergeForecast & {
    /** The base is an ancestor of the branch: `vx land` would take it as it is. */
    fastForward: boolean;
    /** Files the branch changed since its merge-base with the base. */
    files: string[];
    /** Ids of the other missions on the same base that changed at least one of those files. */
    overlaps: string[];
  };

/** Missions whose camp is leased; `leased` undefined (pool unreadable): every mission with a camp, and git alone decides. */
export function missionsInFlight(tasks: readonly Task[], leased: ReadonlySet<string> | undefined): MissionRef[] {
  const out: MissionRef[] = [];
  for (const t of tasks) {
    if (t.kind !== "mission" || !t.camp_branch || !t.camp_base) continue;
    // No branch name starts with a dash; a task file saying so must not become a git option.
    if (t.camp_branch.startsWith("-") || t.camp_base.startsWith("-")) continue;
    if (leased && !leased.has(t.id)) continue;
    out.push({ id: t.id, branch: t.camp_branch, base: t.camp_base });
  }
  return out;
}

function byBase(missions: readonly MissionRef[]): Map<string, MissionRef[]> {
  const groups = new Map<string, MissionRef[]>();
  for (const m of missions) groups.set(m.base, [...(groups.get(m.base) ?? []), m]);
  return groups;
}

type Found = { m: MissionRef; d: Divergence };

/** One base's missions with commits it lacks; when `rev-parse` fails (a branch deleted under a camp), `for-each-ref` prunes and it asks again. */
async function withCommits(dir: string, base: string, group: MissionRef[], exec: Exec): Promise<Found[]> {
  let div = await divergence(
    dir,
    base,
    group.map((m) => m.branch),
    exec,
  );
  let candidates = group;
  if (!div) {
    const notMerged = await branchesNotMerged(
      dir,
      base,
      group.map((m) => m.branch),
      exec,
    );
    candidates = group.filter((m) => notMerged?.has(m.branch));
    div = await divergence(
      dir,
      base,
      candidates.map((m) => m.branch),
      exec,
    );
  }
  const found = div;
  if (!found) return [];
  return candidates.flatMap((m) => {
    const d = found.get(m.branch);
    return d?.ahead ? [{ m, d }] : [];
  });
}

/** Forecasts by branch: one batched merge-tree, else (an older git) one per branch. */
async function forecastAll(dir: string, base: string, branches: string[], exec: Exec): Promise<Map<string, MergeForecast>> {
  if (branches.length === 0) return new Map();
  const batch = await mergeForecasts(dir, base, branches, exec);
  const each = batch ?? (await Promise.all(branches.map((b) => mergeForecast(dir, base, b, exec))));
  return new Map(branches.map((b, i) => [b, each[i] as MergeForecast]));
}

/** One base's rows: the files and the merges side by side, then the overlaps. */
async function study(dir: string, base: string, rows: Found[], exec: Exec): Promise<MissionLanding[]> {
  // Unrelated histories have no merge-base to diff from; their files stay unknown (none).
  const diffable = rows.filter((r) => r.d.mergeBase !== undefined);
  // A fast-forward is its own clean merge; only the diverged ones need a forecast.
  const [files, forecasts] = await Promise.all([
    changedFiles(
      dir,
      diffable.map((r) => ({ tip: r.d.tip, mergeBase: r.d.mergeBase as string })),
      exec,
    ),
    forecastAll(
      dir,
      base,
      rows.filter((r) => !r.d.fastForward).map((r) => r.m.branch),
      exec,
    ),
  ]);
  const filesOf = new Map(diffable.map((r, i) => [r.m.id, files?.[i] ?? []]));
  const clean: MergeForecast = { merge: "clean", conflicts: [] };
  const unknown: MergeForecast = { merge: "unknown", conflicts: [] };
  const studied = rows.map(({ m, d }) => ({
    ...m,
    ...(d.fastForward ? clean : (forecasts.get(m.branch) ?? unknown)),
    fastForward: d.fastForward,
    files: filesOf.get(m.id) ?? [],
    overlaps: [] as string[],
  }));
  for (const row of studied) {
    const mine = new Set(row.files);
    row.overlaps = studied.filter((o) => o.id !== row.id && o.files.some((f) => mine.has(f))).map((o) => o.id);
  }
  return studied;
}

/** The landing picture of every mission with commits ahead of its base, in the order given. */
export async function landingReport(dir: string, missions: readonly MissionRef[], exec: Exec): Promise<MissionLanding[]> {
  const rows = new Map<string, MissionLanding>();
  for (const [base, group] of byBase(missions)) {
    const found = await withCommits(dir, base, group, exec);
    if (found.length === 0) continue;
    for (const row of await study(dir, base, found, exec)) rows.set(row.id, row);
  }
  return missions.flatMap((m) => rows.get(m.id) ?? []);
}

/** Missions on `base` with commits it lacks that no longer fast-forward it (after a landing). */
export async function divergedMissions(dir: string, base: string, missions: readonly MissionRef[], exec: Exec): Promise<MissionRef[]> {
  const group = missions.filter((m) => m.base === base);
  if (group.length === 0) return [];
  return (await withCommits(dir, base, group, exec)).filter((f) => !f.d.fastForward).map((f) => f.m);
}

/** TSK-11's text line under a mission's status line. */
export function landingLine(l: MissionLanding): string {
  const ff = l.fastForward ? `fast-forwards ${l.base}` : `diverged from ${l.base}`;
  const merge = l.merge === "clean" ? "merges cleanly" : l.merge === "conflict" ? "would conflict" : "merge unknown";
  const files = `${l.files.length} ${l.files.length === 1 ? "file" : "files"} changed`;
  const overlaps = l.overlaps.length === 0 ? "no overlap" : `overlaps ${l.overlaps.join(", ")}`;
  return `    landing: ${ff}; ${merge}; ${files}; ${overlaps}`;
}

/** TSK-11's JSON entry (snake_case, as every key vx prints). */
export function landingJson(l: MissionLanding): Record<string, unknown> {
  return {
    task_id: l.id,
    camp_branch: l.branch,
    camp_base: l.base,
    fast_forward: l.fastForward,
    merge: l.merge,
    conflicts: l.conflicts,
    files: l.files,
    overlaps: l.overlaps,
  };
}

/** CMD-LAND-03's line, or undefined when no mission diverged. */
export function divergedLine(base: string, diverged: readonly MissionRef[]): string | undefined {
  if (diverged.length === 0) return undefined;
  const ids = diverged.map((m) => m.id).join(", ");
  return `vx: now diverged from ${base}: ${ids}; vx land rebases a clean one itself, prompt only those it refuses (vx prompt <id> "rebase on ${base}")`;
}

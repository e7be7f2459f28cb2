/** A soldier's name (HRD-06), the same on every backend: herdr agent and tab, tmux session, report and pause files. */

const NAME_MAX = 32;

function trimDashes(s: string): string {
  return s.replace(/^-+|-+$/g, "");
}

/** `vx-` and a prompt slug within herdr's `[a-z][a-z0-9_-]{0,31}`; `vx-<8 hex of the id>` without a usable letter. */
export function agentName(prompt: string, taskId: string): string {
  const slug = trimDashes(prompt.toLowerCase().replace(/[^a-z0-9]+/g, "-"));
  if (!slug) return `vx-${taskId.slice(0, 8)}`;
  // The cut can land just after a separator; a name ending in `-` would read as truncated noise.
  return trimDashes(`vx-${slug}`.slice(0, NAME_MAX));
}

/** HRD-06 fallback after `agent_name_taken`: the candidate cut so `<cut>-<first 6 hex of id>` fits 32. */
export function fallbackName(candidate: string, taskId: string): string {
  const suffix = `-${taskId.slice(0, 6)}`;
  return `${trimDashes(candidate.slice(0, NAME_MAX - suffix.length))}${suffix}`;
}

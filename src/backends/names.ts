/**
 * The terminal backend names, and nothing else: what flags, task files and config accept. Kept
 * apart from the backend registry so the schemas read the names without loading a backend.
 */
export const BACKEND_NAMES = ["herdr", "tmux"] as const;
export type BackendName = (typeof BACKEND_NAMES)[number];

/** The backend of a project that names none, and of a task written before the field existed. */
export const DEFAULT_BACKEND: BackendName = "herdr";

/**
 * The backend a new project gets when the person names none: herdr when vx runs in a herdr pane
 * or herdr is installed, else tmux when that is (a machine with only tmux must not get a default
 * every dispatch refuses), else herdr, which doctor then reports missing.
 */
export function installedBackend(env: Record<string, string | undefined>, onPath: (program: string) => boolean): BackendName {
  if (env.HERDR_WORKSPACE_ID || onPath("herdr")) return "herdr";
  return onPath("tmux") ? "tmux" : DEFAULT_BACKEND;
}

/** The backend holding a task's soldier (HRD-01's default for tasks older than the field). */
export function backendOf(task: { backend?: BackendName }): BackendName {
  return task.backend ?? DEFAULT_BACKEND;
}

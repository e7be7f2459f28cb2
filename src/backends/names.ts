/**
 * The terminal backend names, and nothing else: what flags, task files and config accept. Kept
 * apart from the backend registry so the schemas read the names without loading a backend.
 */
export const BACKEND_NAMES = ["herdr", "tmux"] as const;
export type BackendName = (typeof BACKEND_NAMES)[number];

/** The backend of a project that names none, and of a task written before the field existed. */
export const DEFAULT_BACKEND: BackendName = "herdr";

/** The backend holding a task's soldier (HRD-01's default for tasks older than the field). */
export function backendOf(task: { backend?: BackendName }): BackendName {
  return task.backend ?? DEFAULT_BACKEND;
}

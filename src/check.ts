/**
 * One line of `vx doctor` (DOC-02): what a harness, a terminal backend or doctor itself reports
 * about the environment. Its own module so the harness and backend homes can say what they check
 * without importing doctor's report.
 */

/** `optional`: a tool this project does not need is not installed (only a word, never a failure). */
type CheckStatus = "ok" | "warn" | "missing" | "optional";

export type Check = {
  status: CheckStatus;
  name: string;
  detail?: string;
  /** A missing required check makes the environment not ready (exit 1). */
  required?: boolean;
};

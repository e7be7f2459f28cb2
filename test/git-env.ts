/**
 * The git settings every test's git runs with, whoever runs the suite: its own identity, and no
 * global or system config (a person's commit.gpgsign, core.hooksPath or identity, or a machine
 * without one, must neither break nor slow a test). Set in the preload for the test process and
 * in each sandbox's environment, which is built, never inherited. No automatic maintenance: every
 * commit, merge and rebase would start a `git maintenance run --auto` child that finds nothing to
 * do in a repository of a few commits (over 300 processes a run, vx's and the tests').
 */
export const GIT_TEST_ENV: Readonly<Record<string, string>> = {
  GIT_AUTHOR_NAME: "vx test",
  GIT_AUTHOR_EMAIL: "vx@test.invalid",
  GIT_COMMITTER_NAME: "vx test",
  GIT_COMMITTER_EMAIL: "vx@test.invalid",
  GIT_CONFIG_GLOBAL: "/dev/null",
  GIT_CONFIG_NOSYSTEM: "1",
  GIT_CONFIG_COUNT: "1",
  GIT_CONFIG_KEY_0: "maintenance.auto",
  GIT_CONFIG_VALUE_0: "false",
};

/**
 * Every failure that crosses the bridge has one of these codes. Expected failures carry
 * a message written for the user; unexpected ones are reduced to `internal` with no stack.
 *
 * Without zod: the UI's first load checks the host's frames with them (host-frames.ts).
 */
export const ERROR_CODES = [
  'invalid_input',
  'unknown_channel',
  'forbidden',
  'not_found',
  'conflict',
  'unavailable',
  'internal',
  // projects
  'path_not_found',
  'not_a_directory',
  'not_a_git_repo',
  'git_not_installed',
  'already_added',
  // store
  'database_too_new',
  'disk_full',
  'database_corrupt',
  // files and folders the operating system refuses to open
  'permission_denied',
  // bridge: one connection asked for more than its share (subscriptions, requests in flight)
  'limit_exceeded',
] as const;

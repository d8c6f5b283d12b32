import type { CliCommand } from '../command';
import { projectsCommand } from './projects';
import { serveCommand } from './serve';
import { chatCommand } from './chat';
import { profilesCommand } from './profiles';
import { coderCommand } from './coder';
import { dbCommand } from './db';
import { worktreeCommand } from './worktree';
import { autopilotCommand } from './autopilot';
import { featureCommand } from './feature';
import { containersCommand } from './containers';
import { adrCommand, mailboxCommand, reportsCommand, taskCommand } from './mailbox';
import { budgetCommand } from './budget';
import { mcpCommand } from './mcp';
import { sessionCommand } from './session';

/** Every CLI command. Capabilities add theirs here. */
export const COMMANDS: readonly CliCommand[] = [
  serveCommand,
  projectsCommand,
  chatCommand,
  profilesCommand,
  coderCommand,
  dbCommand,
  worktreeCommand,
  autopilotCommand,
  featureCommand,
  containersCommand,
  mailboxCommand,
  taskCommand,
  reportsCommand,
  adrCommand,
  budgetCommand,
  mcpCommand,
  sessionCommand,
];

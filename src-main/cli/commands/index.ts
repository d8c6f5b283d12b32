import type { CliCommand } from '../command';
import { projectsCommand } from './projects';
import { serveCommand } from './serve';

/** Every CLI command. Capabilities add theirs here. */
export const COMMANDS: readonly CliCommand[] = [serveCommand, projectsCommand];

/**
 * Seed 001 §1–§2, RunInput: the one entry point. The input is trimmed; `!` runs a command,
 * `/` a built-in command, anything else an ordinary turn.
 */
import { AppError, type ImageAttachment } from '../../../src-preload/contract';
import { runBangCommand } from './bang';
import { runTurn, type TurnEnd } from './run-turn';
import { runSlashCommand } from './slash';
import type { TurnContext } from './turn-context';

export type InputKind = 'chat' | 'bang' | 'slash';

export function inputKind(input: string): InputKind {
  const t = input.trim();
  return t.startsWith('!') ? 'bang' : t.startsWith('/') ? 'slash' : 'chat';
}

export function parseSlash(text: string): { name: string; args: string[] } {
  const [head = '', ...args] = text.slice(1).trim().split(/\s+/).filter(Boolean);
  return { name: head.toLowerCase(), args };
}

export async function runInput(ctx: TurnContext, input: string, images: readonly ImageAttachment[] = []): Promise<TurnEnd> {
  const text = input.trim();
  // Checked by the service before the turn starts; kept here so no path drops images silently.
  if (images.length > 0 && inputKind(text) !== 'chat') throw new AppError('invalid_input', 'Images go with a message to the agent, not with a ! or / command.');
  switch (inputKind(text)) {
    case 'bang':
      return runBangCommand(ctx, input, text.slice(1).trim());
    case 'slash': {
      const { name, args } = parseSlash(text);
      return runSlashCommand(ctx, input, name, args);
    }
    default:
      return runTurn(ctx, text, images);
  }
}

import type { AgentMode } from '../../../src-preload/contract/agents';
import { MODE_LABEL } from '../../../src-preload/contract/words';

/**
 * A session's modes as the mode switcher offers them. In a module of its own: the keyboard layer,
 * loaded with the first page, needs them without the session header (and the diff viewer and
 * syntax highlighter it brings).
 */
export const MODES: Array<{ value: AgentMode; label: string; help: string }> = [
  { value: 'plan', label: MODE_LABEL.plan, help: 'Explore and propose; no writes, no side effects' },
  { value: 'default', label: MODE_LABEL.default, help: 'Writes and risky commands ask first' },
  { value: 'auto-edit', label: MODE_LABEL['auto-edit'], help: 'Reads and writes freely, verifies automatically' },
  { value: 'yolo', label: MODE_LABEL.yolo, help: 'Commands run unasked too (the hard floor still applies)' },
];

/**
 * The worker thread that parses state files for the scanner (state-parser.ts): text in, the
 * validated state or the parse error out. It reads no file and holds nothing between messages;
 * the reads, with their checks against symlinks and FIFOs, stay on the main thread.
 */
import { parentPort } from 'node:worker_threads';
import { isFeatureError } from './errors';
import { parseStateFully } from './state';
import type { ParseReply, ParseRequest } from './state-parser';

if (!parentPort) {
  process.stderr.write('the state parser runs as a worker thread of Flightdeck\n');
  process.exit(2);
}
const port = parentPort;

port.on('message', (m: ParseRequest) => {
  let reply: ParseReply;
  try {
    // Sent here only when the fast loader said no (state-parser.ts): the full parse.
    reply = { id: m.id, state: parseStateFully(m.text, m.path) };
  } catch (e) {
    reply = {
      id: m.id,
      error: isFeatureError(e) ? { kind: e.kind, detail: e.detail, path: e.path ?? null, line: e.line ?? null } : { message: e instanceof Error ? e.message : String(e) },
    };
  }
  port.postMessage(reply);
});
port.postMessage({ ready: true });

/**
 * Workspace trust in the CLI's words: what a repository's trust review shows, and the one stderr
 * line a command prints when it left out a part of an untrusted repository's config.
 */
import type { TrustStatus } from '../../../src-preload/contract';
import type { AppServices } from '../../app/services';
import { skippedText, type TrustPart } from '../../trust/trust-service';
import type { CliContext } from '../command';

const KIND_WORD: Record<string, string> = { command: 'runs', image: 'image', setting: 'setting', folder: 'reads', file: 'file', problem: 'problem' };

/** The review: state, every item (or what changed since the last trust). */
export function trustLines(s: TrustStatus): string[] {
  const head =
    s.state === 'trusted'
      ? `${s.root} is trusted (since ${new Date(s.trustedAt ?? 0).toISOString()}).`
      : s.state === 'changed'
        ? `${s.root} changed since it was trusted: it is untrusted until reviewed again. What changed:`
        : `${s.root} is untrusted: Flightdeck defaults apply.${s.items.length ? ' Trusting it lets Flightdeck run and read:' : ' It holds nothing that runs or is read on its say-so.'}`;
  const out = [head];
  if (s.state === 'changed') {
    for (const c of s.changes) out.push(`  ${c.change.padEnd(7)} ${c.key}: ${c.before ?? ''}${c.before !== null && c.after !== null ? ' → ' : ''}${c.after ?? ''}`);
    out.push('What trusting it now covers:');
  }
  if (s.state !== 'trusted' || s.items.length) for (const i of s.items) out.push(`  [${KIND_WORD[i.kind] ?? i.kind}] ${i.value}    (${i.label})`);
  return out;
}

/** The warning for parts of an untrusted repository a command did not use. */
export function untrustedLine(root: string, skipped: readonly string[]): string {
  return `warning: ${root} is untrusted: ${skipped.join('; ')}. Flightdeck defaults apply; review and trust it with: flightdeck projects trust ${root}`;
}

/** The parts of `root`'s config a command would use that are left out while it is untrusted; a warning line for them on stderr. */
export async function warnUntrusted(ctx: CliContext, app: AppServices, root: string, parts: readonly TrustPart[]): Promise<TrustPart[]> {
  const status = await app.trust.status(root);
  const skipped = app.trust.skipped(status).filter((p) => parts.includes(p));
  if (skipped.length > 0) ctx.err(untrustedLine(status.root, skipped.map((p) => skippedText(p, status.items))));
  return skipped;
}

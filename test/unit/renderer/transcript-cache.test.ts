import { describe, expect, it } from 'vitest';
import { TranscriptCache, transcriptChars } from '../../../src-renderer/src/agents/transcript-cache';
import { emptyTranscript, type Transcript } from '../../../src-renderer/src/agents/transcript';

/** A transcript of one answer of `chars` characters, folded up to `lastSeq`. */
function transcript(chars: number, lastSeq = 10): Transcript {
  return { ...emptyTranscript, items: [{ kind: 'assistant', id: '1', text: 'x'.repeat(chars) }], lastSeq };
}

describe('TranscriptCache', () => {
  it('gives back the transcript kept for a session, and nothing for another', () => {
    const cache = new TranscriptCache(10_000, 4);
    const t = transcript(500);
    cache.put('a', t);
    expect(cache.get('a')).toBe(t);
    expect(cache.get('b')).toBeNull();
  });

  it('drops the session shown longest ago past its character budget; showing one again makes it the newest', () => {
    const size = transcriptChars(transcript(1_000));
    const cache = new TranscriptCache(size * 3, 10);
    cache.put('a', transcript(1_000));
    cache.put('b', transcript(1_000));
    cache.put('c', transcript(1_000));
    // a shown again: b is now the one shown longest ago.
    cache.put('a', transcript(1_000, 20));
    cache.put('d', transcript(1_000));
    expect(cache.get('b')).toBeNull();
    expect(cache.get('a')?.lastSeq).toBe(20);
    expect(cache.get('c')).not.toBeNull();
    expect(cache.get('d')).not.toBeNull();
    expect(cache.size).toEqual({ sessions: 3, chars: size * 3 });
  });

  it('keeps at most its count of sessions however small they are', () => {
    const cache = new TranscriptCache(1_000_000, 2);
    for (const id of ['a', 'b', 'c']) cache.put(id, transcript(10));
    expect(cache.get('a')).toBeNull();
    expect(cache.size.sessions).toBe(2);
  });

  it('does not keep an empty transcript or one larger than the whole budget', () => {
    const cache = new TranscriptCache(5_000, 4);
    cache.put('empty', emptyTranscript);
    cache.put('huge', transcript(10_000));
    expect(cache.get('empty')).toBeNull();
    expect(cache.get('huge')).toBeNull();
    expect(cache.size).toEqual({ sessions: 0, chars: 0 });
  });

  it('counts the text of tool calls, their output and set-aside turns', () => {
    const tool: Transcript = {
      ...emptyTranscript,
      items: [
        { kind: 'tool', id: 't', tool: 'bash', inputJson: 'i'.repeat(100), decision: null, approval: null, output: 'o'.repeat(1_000), outputTruncated: false, terminalId: null, result: { isError: false, content: 'c'.repeat(2_000), exitCode: 0, durationMs: 1 } },
        { kind: 'rewound', id: 'r', toTurn: 1, fromTurn: 2, toLast: 2, items: [{ kind: 'user', id: 'u', turnId: null, text: 'u'.repeat(3_000), inputKind: 'chat', ts: 1 }] },
      ],
    };
    expect(transcriptChars(tool)).toBeGreaterThanOrEqual(6_100);
  });
});

import { useEffect, useImperativeHandle, type ReactNode, type Ref, type RefObject } from 'react';
import { useVirtualizer } from '@tanstack/react-virtual';
import type { TranscriptItem } from './transcript';

/**
 * From this many blocks on, a transcript is virtualized: only the blocks near the viewport are
 * in the page. Below it every block is rendered, so the browser's own find and the
 * accessibility tree see the whole conversation of an ordinary session; past it (a session of
 * a few hundred turns is thousands of blocks of Markdown and tool output) rendering everything
 * costs seconds per switch and hundreds of MB of DOM.
 */
export const VIRTUALIZE_FROM_BLOCKS = 300;
/** A first guess of a block's height before it is measured (a message or a folded tool card). */
const ESTIMATED_BLOCK_PX = 120;
/** Blocks rendered beyond each edge of the viewport, so a wheel or PageUp finds them ready. */
const OVERSCAN_BLOCKS = 6;

/** A reading position: the block at the top of the view and how far into it the view starts. */
export interface TranscriptAnchor {
  key: string;
  offset: number;
}

export interface VirtualTranscriptHandle {
  /** Brings a block into view (the find bar's matches). */
  scrollToIndex(index: number): void;
  /** Where the reader is: the first block reaching into the view. */
  anchor(): TranscriptAnchor | null;
  /** Puts that block back at the same place in the view (blocks were added above it). */
  restore(anchor: TranscriptAnchor): void;
  /** To the first or the last block (Home and End: the browser's smooth scroll would be cut short as rows are measured on the way). */
  toEdge(edge: 'start' | 'end'): void;
}

/**
 * The blocks of a long transcript, virtualized in the transcript's own scroller. Rows are
 * positioned with `top`, not a transform: a transform would make each row a stacking context,
 * and a turn's menu opening over the next row would be painted under it.
 */
export function VirtualTranscript({
  items,
  scroller,
  follow,
  highlight,
  render,
  handle,
}: {
  items: readonly TranscriptItem[];
  scroller: RefObject<HTMLDivElement | null>;
  /** The view follows new output: as rows are measured the bottom stays in view. */
  follow: RefObject<boolean>;
  /** A block to mark (the current find match). */
  highlight: number | null;
  render(item: TranscriptItem, index: number): ReactNode;
  handle: Ref<VirtualTranscriptHandle>;
}) {
  // The virtualizer's functions change with every scroll; nothing here memoizes on them.
  // eslint-disable-next-line react-hooks/incompatible-library
  const virtual = useVirtualizer({
    count: items.length,
    getScrollElement: () => scroller.current,
    estimateSize: () => ESTIMATED_BLOCK_PX,
    overscan: OVERSCAN_BLOCKS,
    getItemKey: (i) => items[i]!.kind + items[i]!.id,
    // A view that follows the stream opens at its newest blocks: its first render lays out the
    // rows at the bottom, not the first rows of the session and then, a frame later, the last.
    initialOffset: () => (follow.current ? Math.max(0, items.length * ESTIMATED_BLOCK_PX - window.innerHeight) : 0),
  });
  useImperativeHandle(
    handle,
    () => ({
      scrollToIndex: (index) => virtual.scrollToIndex(index, { align: 'center' }),
      anchor: () => {
        const top = scroller.current?.scrollTop ?? 0;
        const first = virtual.getVirtualItems().find((v) => v.end > top);
        return first ? { key: String(first.key), offset: top - first.start } : null;
      },
      restore: ({ key, offset }) => {
        const el = scroller.current;
        const index = items.findIndex((it) => it.kind + it.id === key);
        const at = index >= 0 ? virtual.getOffsetForIndex(index, 'start') : undefined;
        if (el && at) el.scrollTop = at[0] + offset;
      },
      toEdge: (edge) => (edge === 'start' ? virtual.scrollToIndex(0, { align: 'start' }) : virtual.scrollToIndex(items.length - 1, { align: 'end' })),
    }),
    [virtual, items, scroller],
  );

  // Measured rows change the total height: a view that follows the stream stays at the bottom.
  const inner = virtual.getTotalSize();
  useEffect(() => {
    const el = scroller.current;
    if (el && follow.current) el.scrollTop = el.scrollHeight;
  }, [inner, scroller, follow]);

  return (
    <div className="transcript-virtual" style={{ height: inner }} data-testid="transcript-virtual">
      {virtual.getVirtualItems().map((v) => (
        <div key={v.key} data-index={v.index} ref={virtual.measureElement} className={`transcript-row${highlight === v.index ? ' find-hit' : ''}`} style={{ top: v.start }}>
          {render(items[v.index]!, v.index)}
        </div>
      ))}
    </div>
  );
}

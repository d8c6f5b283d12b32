import { describe, expect, it } from 'vitest';
import { rankPaths, scorePath } from '../../../src-main/agents/mention-rank';

const FILES = ['README.md', 'src/main.ts', 'src/agents/Composer.tsx', 'src/agents/composer-logic.ts', 'test/unit/composer.test.ts', 'docs/compose.md', 'src/components/Icon.tsx', 'package.json'];

describe('fuzzy ranking of paths for @ mentions', () => {
  it('matches characters in order, case-insensitively, and nothing else', () => {
    expect(scorePath('src/agents/Composer.tsx', 'cmpsr')).not.toBeNull();
    expect(scorePath('src/agents/Composer.tsx', 'xq')).toBeNull();
    expect(scorePath('src/agents/Composer.tsx', 'txs')).toBeNull();
    expect(rankPaths(FILES, 'zzz', 10)).toEqual([]);
  });

  it('puts file-name prefixes first, then word starts, then scattered matches', () => {
    expect(rankPaths(FILES, 'composer', 3)).toEqual(['src/agents/Composer.tsx', 'test/unit/composer.test.ts', 'src/agents/composer-logic.ts']);
    expect(rankPaths(FILES, 'pkg', 1)).toEqual(['package.json']);
    expect(rankPaths(FILES, 'ic', 1)).toEqual(['src/components/Icon.tsx']);
    expect(rankPaths(FILES, 'agcomp', 2)).toEqual(['src/agents/Composer.tsx', 'src/agents/composer-logic.ts']);
  });

  it('with an empty query lists the shortest paths first, bounded by the limit', () => {
    expect(rankPaths(FILES, '', 3)).toEqual(['README.md', 'src/main.ts', 'package.json']);
    expect(rankPaths(FILES, '  ', 50)).toHaveLength(FILES.length);
  });
});

/** `npx -y pkg --flag "a b"` → ['npx', '-y', 'pkg', '--flag', 'a b']: whitespace splits, quotes group. */
export function splitCommandLine(line: string): string[] {
  const out: string[] = [];
  const re = /"([^"]*)"|'([^']*)'|(\S+)/g;
  for (let m = re.exec(line); m; m = re.exec(line)) out.push(m[1] ?? m[2] ?? m[3] ?? '');
  return out;
}

/** One `NAME=VALUE` (or `Name: value`) per line, blank lines skipped; throws naming a line without the separator. */
export function pairLines(text: string, sep: '=' | ':'): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of text.split('\n')) {
    const t = line.trim();
    if (!t) continue;
    const i = t.indexOf(sep);
    if (i <= 0) throw new Error(`"${t.slice(0, 40)}" is not ${sep === '=' ? 'NAME=value' : 'Name: value'}`);
    out[t.slice(0, i).trim()] = t.slice(i + 1).trim();
  }
  return out;
}

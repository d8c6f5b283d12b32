/**
 * A minimal ustar archive of regular files (what `putArchive` needs to copy a run's few private
 * files into a container with an owner and mode), so no untyped tar package is needed.
 */

const BLOCK = 512;

function octal(n: number, width: number): string {
  return `${n.toString(8).padStart(width - 1, '0')}\0`;
}

function header(name: string, size: number, mode: number, uid: number, gid: number, mtime: number, type: '0' | '5' = '0'): Uint8Array {
  const h = new Uint8Array(BLOCK);
  const enc = new TextEncoder();
  const put = (s: string, off: number, len: number) => h.set(enc.encode(s).subarray(0, len), off);
  let prefix = '';
  let base = name;
  if (enc.encode(name).length > 100) {
    const cut = name.lastIndexOf('/', 155);
    if (cut <= 0 || enc.encode(name.slice(cut + 1)).length > 100) throw new Error(`path too long for a tar entry: ${name}`);
    prefix = name.slice(0, cut);
    base = name.slice(cut + 1);
  }
  put(base, 0, 100);
  put(octal(mode, 8), 100, 8);
  put(octal(uid, 8), 108, 8);
  put(octal(gid, 8), 116, 8);
  put(octal(size, 12), 124, 12);
  put(octal(mtime, 12), 136, 12);
  put('        ', 148, 8);
  put(type, 156, 1);
  put('ustar\0', 257, 6);
  put('00', 263, 2);
  put(prefix, 345, 155);
  let sum = 0;
  for (const b of h) sum += b;
  put(`${sum.toString(8).padStart(6, '0')}\0 `, 148, 8);
  return h;
}

/**
 * The archive bytes: each file (path relative to the extraction folder) with its content, mode and
 * owner. `dir: true` makes a directory entry (no content): extracting it over an existing folder,
 * a volume's mount point, gives that folder the entry's owner.
 */
export function tarFiles(files: ReadonlyArray<{ name: string; content: string | Uint8Array; mode: number; uid: number; gid: number; dir?: boolean }>, mtime = Math.floor(Date.now() / 1000)): Uint8Array {
  const parts: Uint8Array[] = [];
  for (const f of files) {
    if (f.dir) {
      parts.push(header(f.name, 0, f.mode, f.uid, f.gid, mtime, '5'));
      continue;
    }
    const body = typeof f.content === 'string' ? new TextEncoder().encode(f.content) : f.content;
    parts.push(header(f.name, body.length, f.mode, f.uid, f.gid, mtime), body, new Uint8Array((BLOCK - (body.length % BLOCK)) % BLOCK));
  }
  parts.push(new Uint8Array(BLOCK * 2));
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return out;
}

/**
 * The first regular file of an archive (what `getArchive` returns for one file's path), or null.
 * Only ustar/GNU headers are read: a PAX or long-name header before it is skipped as its own entry.
 */
export function firstFileOfTar(tar: Uint8Array): { name: string; content: Uint8Array } | null {
  const dec = new TextDecoder();
  let off = 0;
  while (off + BLOCK <= tar.length) {
    const h = tar.subarray(off, off + BLOCK);
    if (h.every((b) => b === 0)) return null;
    const name = dec.decode(h.subarray(0, 100)).replace(/\0.*$/s, '');
    const size = parseInt(dec.decode(h.subarray(124, 136)).replace(/\0.*$/s, '').trim() || '0', 8);
    const type = String.fromCharCode(h[156]!);
    const body = off + BLOCK;
    if (type === '0' || type === '\0') return { name, content: tar.subarray(body, body + size) };
    off = body + Math.ceil(size / BLOCK) * BLOCK;
  }
  return null;
}

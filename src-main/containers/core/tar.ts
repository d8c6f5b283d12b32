/**
 * A minimal ustar archive of regular files (what `putArchive` needs to copy a run's few private
 * files into a container with an owner and mode), so no untyped tar package is needed.
 */

const BLOCK = 512;

function octal(n: number, width: number): string {
  return `${n.toString(8).padStart(width - 1, '0')}\0`;
}

function header(name: string, size: number, mode: number, uid: number, gid: number, mtime: number): Uint8Array {
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
  put('0', 156, 1);
  put('ustar\0', 257, 6);
  put('00', 263, 2);
  put(prefix, 345, 155);
  let sum = 0;
  for (const b of h) sum += b;
  put(`${sum.toString(8).padStart(6, '0')}\0 `, 148, 8);
  return h;
}

/** The archive bytes: each file (path relative to the extraction folder) with its content, mode and owner. */
export function tarFiles(files: ReadonlyArray<{ name: string; content: string; mode: number; uid: number; gid: number }>, mtime = Math.floor(Date.now() / 1000)): Uint8Array {
  const parts: Uint8Array[] = [];
  for (const f of files) {
    const body = new TextEncoder().encode(f.content);
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

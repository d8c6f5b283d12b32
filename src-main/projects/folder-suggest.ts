/**
 * Path completion for "Add project" in browser mode, where the browser has no folder picker:
 * the subfolders of a typed folder that start with the typed name. Confined to the user's home
 * folder: the listed folder and every suggestion must resolve (symbolic links followed) inside
 * it; a link that leads out is left out, files are never listed, and the count is bounded.
 */
import { readdirSync, realpathSync, statSync, type Dirent } from 'node:fs';
import { isAbsolute, join, relative, resolve, sep } from 'node:path';

/** Suggestions one answer lists: a dropdown longer than this is scrolled past, not read. */
export const MAX_FOLDER_SUGGESTIONS = 50;
/** Entries read from one folder at most: a folder with 100,000 entries must not stall the host. */
const MAX_ENTRIES_SCANNED = 5_000;

export interface FolderSuggestions {
  folder: string | null;
  suggestions: Array<{ name: string; path: string }>;
  truncated: boolean;
  problem: string | null;
}

function inside(root: string, p: string): boolean {
  const rel = relative(root, p);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
}

function none(problem: string): FolderSuggestions {
  return { folder: null, suggestions: [], truncated: false, problem };
}

/** Splits what was typed into the folder to list and the start of the name to complete. */
export function splitTyped(typed: string, home: string): { folder: string; prefix: string } {
  let t = typed.trim();
  if (t === '' || t === '~') t = '~/';
  // Plain concatenation, not join(): join would normalize a trailing "." (the start of a hidden name) away.
  if (t.startsWith('~/')) t = home.replace(/\/+$/, '') + t.slice(1);
  const abs = isAbsolute(t) ? t : `${home.replace(/\/+$/, '')}/${t}`;
  if (abs.endsWith('/') || abs.endsWith(sep)) return { folder: resolve(abs), prefix: '' };
  const cut = abs.lastIndexOf('/');
  return { folder: resolve(abs.slice(0, cut + 1) || '/'), prefix: abs.slice(cut + 1) };
}

export function suggestFolders(typed: string, home: string): FolderSuggestions {
  let realHome: string;
  try {
    realHome = realpathSync(home);
  } catch {
    return none('Your home folder cannot be read, so no folders are suggested.');
  }
  const { folder, prefix } = splitTyped(typed, home);
  // The spelling the user sees: under the home folder as they typed it, checked by real path.
  if (!inside(resolve(home), folder) && !inside(realHome, folder)) return none('Only folders inside your home folder are suggested.');
  let realFolder: string;
  try {
    realFolder = realpathSync(folder);
    if (!statSync(realFolder).isDirectory()) return none(`${folder} is not a folder.`);
  } catch {
    return none(`${folder} does not exist.`);
  }
  if (!inside(realHome, realFolder)) return none(`${folder} leads outside your home folder through a symbolic link; it is not listed.`);
  let entries: Dirent[];
  try {
    entries = readdirSync(realFolder, { withFileTypes: true }).slice(0, MAX_ENTRIES_SCANNED);
  } catch {
    return none(`${folder} cannot be read (permission denied).`);
  }
  const lower = prefix.toLowerCase();
  const names: string[] = [];
  for (const e of entries) {
    // Hidden folders only when the user starts typing a dot: they are rarely projects.
    if (e.name.startsWith('.') && !prefix.startsWith('.')) continue;
    if (!e.name.toLowerCase().startsWith(lower)) continue;
    if (e.isDirectory()) {
      names.push(e.name);
    } else if (e.isSymbolicLink()) {
      try {
        const target = realpathSync(join(realFolder, e.name));
        if (inside(realHome, target) && statSync(target).isDirectory()) names.push(e.name);
      } catch {
        // A dangling link, or one into a folder we may not read: not a usable project folder.
      }
    }
  }
  names.sort((a, b) => a.localeCompare(b, undefined, { sensitivity: 'base' }));
  const shown = names.slice(0, MAX_FOLDER_SUGGESTIONS);
  return {
    folder,
    suggestions: shown.map((name) => ({ name, path: join(folder, name) })),
    truncated: names.length > shown.length,
    problem: null,
  };
}

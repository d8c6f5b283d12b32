import type { Database } from '../store/db';

export interface ProjectRow {
  id: string;
  name: string;
  path: string;
  addedAt: number;
}

/** The projects table. */
export class ProjectRepo {
  constructor(private readonly db: Database) {}

  all(): ProjectRow[] {
    return this.db.prepare('SELECT id, name, path, added_at AS addedAt FROM projects ORDER BY name COLLATE NOCASE, added_at').all() as ProjectRow[];
  }

  get(id: string): ProjectRow | undefined {
    return this.db.prepare('SELECT id, name, path, added_at AS addedAt FROM projects WHERE id = ?').get(id) as ProjectRow | undefined;
  }

  byPath(path: string): ProjectRow | undefined {
    return this.db.prepare('SELECT id, name, path, added_at AS addedAt FROM projects WHERE path = ?').get(path) as ProjectRow | undefined;
  }

  insert(row: ProjectRow): void {
    this.db.prepare('INSERT INTO projects (id, name, path, added_at) VALUES (?, ?, ?, ?)').run(row.id, row.name, row.path, row.addedAt);
  }

  remove(id: string): boolean {
    return this.db.prepare('DELETE FROM projects WHERE id = ?').run(id).changes > 0;
  }
}

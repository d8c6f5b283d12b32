import { AppServices } from '../../src-main/app/services';
import { silentLogger } from '../../src-main/platform/logger';
import { tempDir } from './temp';

/** The real services on a temporary data folder, as browser mode runs them. */
export async function startTestApp(dataDir?: string): Promise<{ app: AppServices; dataDir: string; cleanup(): void }> {
  const dir = dataDir ? { path: dataDir, cleanup() {} } : tempDir('fd-data-');
  const app = await AppServices.create({ dataDir: dir.path, logger: silentLogger, platform: { runtime: 'browser' } });
  return {
    app,
    dataDir: dir.path,
    cleanup() {
      app.dispose();
      dir.cleanup();
    },
  };
}

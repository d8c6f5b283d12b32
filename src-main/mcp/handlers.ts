import type { Router } from '../bridge/router';
import type { McpService } from './mcp-service';

export function registerMcpHandlers(router: Router, mcp: McpService): void {
  router.handle('mcp.list', () => mcp.list());
  router.handle('mcp.add', (input) => mcp.add(input));
  router.handle('mcp.remove', async ({ name }) => ({ removed: await mcp.remove(name) }));
  router.handle('mcp.setEnabled', ({ name, enabled, projectIds }) => mcp.setEnabled(name, enabled, projectIds));
  router.handle('mcp.setToolPolicy', ({ name, tool, policy }) => mcp.setToolPolicy(name, tool, policy));
  router.handle('mcp.test', ({ name }) => mcp.test(name));
  router.handle('mcp.suggestions', ({ projectId }) => mcp.suggestions(projectId));
  router.handle('mcp.addSuggested', ({ projectId, name }) => mcp.addSuggested(projectId, name));
}

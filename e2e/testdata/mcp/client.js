// client.js is the MCP client of the e2e tests: the published
// @mcp-b/transports TabClientTransport with the MCP TypeScript SDK's
// Client, as extension agents use them. The tests bundle it with the
// pinned esbuild (e2e/mcp_test.go) into a script the test page loads.
import { TabClientTransport } from '@mcp-b/transports';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';

window.mcp = {
  /** How many notifications/tools/list_changed the client received. */
  listChanged: 0,

  /**
   * connect starts a client on the tab transport, towards targetOrigin,
   * and resolves once the MCP handshake is done.
   * @param {string} [targetOrigin]
   */
  async connect(targetOrigin = location.origin) {
    const transport = new TabClientTransport({ targetOrigin });
    const client = new Client({ name: 'veil-e2e', version: '1.0.0' });
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      window.mcp.listChanged++;
    });
    await client.connect(transport);
    return client;
  },
};

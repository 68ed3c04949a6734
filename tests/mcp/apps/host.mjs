// The host side of MCP Apps for tests/mcp/apps: a page that connects to an
// MCP server (same origin, /mcp), shows the view of the tool that has one
// in a sandboxed iframe (sandbox="allow-scripts", the view's CSP as a
// <meta> of its document), and bridges the view to the server with
// ext-apps' AppBridge over postMessage. It enforces visibility, as a host
// must: the view may call only tools whose `_meta.ui.visibility` has "app"
// (the default); the model's tool list leaves out app-only tools.
// Bundled for the browser by esbuild (tests/mcp/apps/run.sh) into
// target/apps/host.js. What it saw is in `window.host` for the test.

import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import {
  AppBridge,
  PostMessageTransport,
  RESOURCE_MIME_TYPE,
  buildAllowAttribute,
  getToolUiResourceUri,
  isToolVisibilityAppOnly,
} from '@modelcontextprotocol/ext-apps/app-bridge';

const state = { ready: false, error: null, refused: [], calls: [], modelTools: [], resultSent: false };
window.host = state;

const status = (text) => {
  document.getElementById('host-status').textContent = text;
};

/** The view's Content Security Policy, from `_meta.ui.csp` (apps.mdx's
 *  default for what it leaves out: nothing beyond the view itself). */
export function contentSecurityPolicy(csp = {}) {
  const list = (origins) => (origins ?? []).join(' ');
  const resources = list(csp.resourceDomains);
  return [
    "default-src 'none'",
    `script-src 'self' 'unsafe-inline' ${resources}`,
    `style-src 'self' 'unsafe-inline' ${resources}`,
    `img-src 'self' data: ${resources}`,
    `font-src 'self' ${resources}`,
    `media-src 'self' data: ${resources}`,
    `connect-src ${csp.connectDomains?.length ? list(csp.connectDomains) : "'none'"}`,
    `frame-src ${csp.frameDomains?.length ? list(csp.frameDomains) : "'none'"}`,
    `base-uri 'self' ${list(csp.baseUriDomains)}`,
  ]
    .map((directive) => directive.trim())
    .join('; ');
}

/** `html` with the policy as the first element of its <head>. */
function withPolicy(html, policy) {
  const meta = `<meta http-equiv="Content-Security-Policy" content="${policy.replaceAll('"', '&quot;')}">`;
  return /<head[^>]*>/i.test(html) ? html.replace(/<head[^>]*>/i, (head) => head + meta) : meta + html;
}

async function main() {
  const client = new Client({ name: 'apps-test-host', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL('/mcp', location.href)));

  const { tools } = await client.listTools();
  const byName = new Map(tools.map((tool) => [tool.name, tool]));
  // What a model would be offered: no app-only tool.
  state.modelTools = tools.filter((tool) => !isToolVisibilityAppOnly(tool)).map((tool) => tool.name);
  // The tool the "model" calls: one with a view that the model may call.
  const shown = tools.find((tool) => getToolUiResourceUri(tool) && !tool._meta.ui.visibility);
  if (!shown) throw new Error('no tool with a view the model may call');
  const uri = getToolUiResourceUri(shown);

  const { resources } = await client.listResources();
  const entry = resources.find((resource) => resource.uri === uri);
  const { contents } = await client.readResource({ uri });
  const view = contents[0];
  if (view.mimeType !== RESOURCE_MIME_TYPE) throw new Error(`the view is ${view.mimeType}`);
  // The content item's _meta.ui first, the list entry's as a fallback.
  const ui = view._meta?.ui ?? entry?._meta?.ui ?? {};
  state.ui = ui;

  const iframe = document.createElement('iframe');
  iframe.id = 'view';
  iframe.title = entry?.title ?? uri;
  iframe.setAttribute('sandbox', 'allow-scripts');
  const allow = buildAllowAttribute(ui.permissions);
  if (allow) iframe.setAttribute('allow', allow);
  document.body.append(iframe);

  const bridge = new AppBridge(
    null,
    { name: 'apps-test-host', version: '1.0.0' },
    { serverTools: {}, logging: {} },
  );
  bridge.oncalltool = async (params) => {
    const tool = byName.get(params.name);
    const visibility = tool?._meta?.ui?.visibility ?? ['model', 'app'];
    if (!tool || !visibility.includes('app')) {
      state.refused.push(params.name);
      throw new Error(`the view may not call ${params.name}: it is not visible to apps`);
    }
    state.calls.push(params.name);
    return client.callTool(params);
  };
  bridge.oninitialized = async () => {
    try {
      // What the model asked for, and what it got: the view shows it.
      await bridge.sendToolInput({ arguments: {} });
      const result = await client.callTool({ name: shown.name, arguments: {} });
      await bridge.sendToolResult(result);
      state.resultSent = true;
      status('view initialized');
    } catch (error) {
      state.error = String(error);
    }
  };
  // Listening before the document loads: its ui/initialize comes first.
  await bridge.connect(new PostMessageTransport(iframe.contentWindow, iframe.contentWindow));
  iframe.srcdoc = withPolicy(view.text, contentSecurityPolicy(ui.csp));
  state.ready = true;
  status('view loading');
}

main().catch((error) => {
  state.error = String(error && error.stack ? error.stack : error);
  status(`failed: ${error}`);
});

// A protected MCP deployment for scout's auth tests, from real parts:
//   * an OAuth 2.1 authorization server: oidc-provider (npm, pinned in package.json) with
//     client credentials, resource indicators (RFC 8707, JWT access tokens whose `aud` is the
//     requested resource), PKCE S256 and dynamic client registration;
//   * an MCP server on the TypeScript SDK v2 (@modelcontextprotocol/server) that validates
//     those tokens with the SDK's own bearer middleware (requireBearerAuth: signature via the
//     authorization server's JWKS, expiry, audience = this server's URL, scope `mcp`) and
//     publishes its RFC 9728 Protected Resource Metadata.
//
// Usage: node oauth_stack.mjs [PORT]
//   The MCP server listens on 127.0.0.1:PORT (default: a free port), the authorization server
//   on a free loopback port; then one line on stderr:
//   `listening on http://127.0.0.1:P/mcp issuer http://127.0.0.1:Q`.
// Env: OAUTH_STACK_CLIENT_SECRET  secret of the confidential client `scout-ci` (required)
//      OAUTH_STACK_AUTH_METHOD    how that client authenticates at the token endpoint:
//                                 client_secret_basic (default) or client_secret_post; the
//                                 authorization server then lists (and takes) only that method
//                                 and `none`
//      SCOUT_TEST_AUTH_LOG        file: one JSON line per verified token
//                                 ({sha256, aud, scope, client_id, method}); never the token
//
// Requests without a token get `401` with `WWW-Authenticate: Bearer resource_metadata=…,
// scope="mcp"` written here (RFC 6750 §3.1: no error code when no credentials were sent);
// everything else about tokens is the SDK's middleware.
import { appendFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { createServer } from 'node:http';
import { once } from 'node:events';
import { z } from 'zod';
import Provider from 'oidc-provider';
import { createRemoteJWKSet, exportJWK, generateKeyPair, jwtVerify } from 'jose';
import { McpServer, OAuthError, createMcpHandler, requireBearerAuth } from '@modelcontextprotocol/server';
import { toNodeHandler } from '@modelcontextprotocol/node';

const secret = process.env.OAUTH_STACK_CLIENT_SECRET;
if (!secret) {
  console.error('oauth_stack: set OAUTH_STACK_CLIENT_SECRET');
  process.exit(2);
}

async function listen(server, port = 0) {
  server.listen(port, '127.0.0.1');
  await once(server, 'listening');
  return server.address().port;
}

// Ports first: the issuer and the resource name each other.
const asServer = createServer();
const mcpServer = createServer();
const issuer = `http://127.0.0.1:${await listen(asServer)}`;
const mcpUrl = `http://127.0.0.1:${await listen(mcpServer, Number(process.argv[2] ?? 0))}/mcp`;
const prmPath = '/.well-known/oauth-protected-resource/mcp';
const prmUrl = new URL(prmPath, mcpUrl).href;

// ------------------------------------------------------------------ authorization server
const authMethod = process.env.OAUTH_STACK_AUTH_METHOD || 'client_secret_basic';
const { privateKey } = await generateKeyPair('RS256', { extractable: true });
const jwk = { ...(await exportJWK(privateKey)), kid: 'stack', alg: 'RS256', use: 'sig' };
const provider = new Provider(issuer, {
  clients: [{
    client_id: 'scout-ci',
    client_secret: secret,
    grant_types: ['client_credentials'],
    redirect_uris: [],
    response_types: [],
    token_endpoint_auth_method: authMethod,
  }],
  clientAuthMethods: [authMethod, 'none'],
  jwks: { keys: [jwk] },
  scopes: ['openid', 'offline_access', 'mcp', 'other'],
  features: {
    clientCredentials: { enabled: true },
    registration: { enabled: true },
    resourceIndicators: {
      enabled: true,
      defaultResource: () => mcpUrl,
      useGrantedResource: () => true,
      // A permissive test authorization server: any absolute resource gets a JWT for it,
      // so scout's audience probe gets a token the MCP server must refuse.
      getResourceServerInfo: () => ({
        scope: 'mcp other',
        accessTokenTTL: 3600,
        accessTokenFormat: 'jwt',
        jwt: { sign: { alg: 'RS256' } },
      }),
    },
  },
});
provider.on('server_error', (_ctx, err) => console.error('[oauth_stack as]', err.message));
asServer.on('request', provider.callback());

// ------------------------------------------------------------------ MCP server
const jwks = createRemoteJWKSet(new URL(`${issuer}/jwks`));
const logFile = process.env.SCOUT_TEST_AUTH_LOG;
const verifier = {
  async verifyAccessToken(token) {
    let payload;
    try {
      ({ payload } = await jwtVerify(token, jwks, { issuer }));
    } catch {
      throw new OAuthError('invalid_token', 'The access token is invalid');
    }
    const aud = Array.isArray(payload.aud) ? payload.aud[0] : payload.aud;
    return {
      token,
      clientId: String(payload.client_id ?? ''),
      scopes: String(payload.scope ?? '').split(' ').filter(Boolean),
      expiresAt: payload.exp,
      resource: aud ? new URL(aud) : undefined,
    };
  },
};
const gate = requireBearerAuth({
  verifier,
  requiredScopes: ['mcp'],
  resourceMetadataUrl: prmUrl,
  expectedResource: new URL(mcpUrl),
});

const text = (t) => ({ content: [{ type: 'text', text: t }] });
function buildServer() {
  const server = new McpServer({ name: 'scout-oauth-stack', version: '0.1.0' });
  server.registerTool('whoami', {
    title: 'Who am I',
    description: 'Return the OAuth client the request was authorised for. Read-only.',
    inputSchema: z.object({}),
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  }, async (_args, ctx) => text(`client ${ctx.http?.authInfo?.clientId ?? 'unknown'}`));
  server.registerTool('echo', {
    title: 'Echo',
    description: 'Return the given message unchanged. Read-only.',
    inputSchema: z.object({ message: z.string().describe('The text to send back') }),
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  }, async ({ message }) => text(message));
  return server;
}
const mcp = toNodeHandler(createMcpHandler(buildServer, { onerror: (e) => console.error('[oauth_stack mcp]', e.message) }));

const sha256 = (s) => createHash('sha256').update(s).digest('hex');
function logToken(auth, method) {
  if (!logFile) return;
  const aud = auth.resource?.href ?? null;
  appendFileSync(logFile, `${JSON.stringify({
    sha256: sha256(auth.token), aud, scope: auth.scopes.join(' '), client_id: auth.clientId, method,
  })}\n`);
}

async function writeResponse(res, response) {
  const headers = {};
  response.headers.forEach((v, k) => { headers[k] = v; });
  res.writeHead(response.status, headers);
  res.end(Buffer.from(await response.arrayBuffer()));
}

mcpServer.on('request', async (req, res) => {
  const path = new URL(req.url ?? '/', mcpUrl).pathname;
  if (path === prmPath) {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({
      resource: mcpUrl,
      authorization_servers: [issuer],
      scopes_supported: ['mcp'],
      bearer_methods_supported: ['header'],
    }));
    return;
  }
  if (path !== '/mcp') {
    res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
    return;
  }
  if (!req.headers.authorization) {
    res.writeHead(401, {
      'content-type': 'application/json',
      'www-authenticate': `Bearer resource_metadata="${prmUrl}", scope="mcp"`,
    });
    res.end(JSON.stringify({ error: 'unauthorized', error_description: 'A bearer token is required' }));
    return;
  }
  // The SDK's middleware reads only the headers.
  const headers = new Headers();
  for (const [k, v] of Object.entries(req.headers)) {
    if (typeof v === 'string') headers.set(k, v);
  }
  const auth = await gate(new Request(mcpUrl, { method: 'GET', headers }));
  if (auth instanceof Response) {
    await writeResponse(res, auth);
    return;
  }
  logToken(auth, req.headers['mcp-method'] ?? req.method);
  req.auth = auth;
  await mcp(req, res);
});

console.error(`listening on ${mcpUrl} issuer ${issuer}`);

// A small MCP server on the TypeScript SDK v2 (@modelcontextprotocol/server 2.4.0), which
// implements the 2026-07-28 revision, for scout's integration tests.
//
// Usage: node ts_server.mjs stdio
//        node ts_server.mjs http PORT   -> http://127.0.0.1:PORT/mcp         2026-07-28 + stateless 2025 fallback
//                                          http://127.0.0.1:PORT/mcp-strict  2026-07-28 only (legacy requests rejected)
//
// Tools: get_time, echo (read-only), add_note (mutating, not destructive), delete_note
// (destructive); with SCOUT_TEST_MRTR set also count_to_three, confirm_greeting and
// name_the_roots (read-only, several round trips on 2026-07-28; asked of a client without
// sampling and roots, the SDK refuses name_the_roots with -32021 itself). When
// SCOUT_TEST_CALL_LOG names a file, every tool call appends one line with the tool's name to
// it, so a test can prove which tools scout really called.
import { appendFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { z } from 'zod';
import { McpServer, createMcpHandler, inputRequired } from '@modelcontextprotocol/server';
import { toNodeHandler, localhostHostValidation, localhostOriginValidation } from '@modelcontextprotocol/node';

// Shared by every request of one process (the HTTP handler builds a server per request).
const notes = new Map();
let nextNote = 1;

function logCall(name) {
  const file = process.env.SCOUT_TEST_CALL_LOG;
  if (file) appendFileSync(file, `${name}\n`);
}

const text = (t) => ({ content: [{ type: 'text', text: t }] });
const readOnly = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };

function buildServer() {
  const server = new McpServer(
    { name: 'scout-test-ts-sdk-v2', version: '0.1.0' },
    { instructions: 'Test server for scout on the TypeScript SDK v2.' },
  );
  server.registerTool('get_time', {
    title: 'Get time',
    description: 'Return the current time in UTC as an ISO 8601 string. Read-only.',
    inputSchema: z.object({}),
    annotations: readOnly,
  }, async () => { logCall('get_time'); return text(new Date().toISOString()); });
  server.registerTool('echo', {
    title: 'Echo',
    description: 'Return the given message unchanged. Read-only.',
    inputSchema: z.object({ message: z.string().describe('The text to send back') }),
    annotations: readOnly,
  }, async ({ message }) => { logCall('echo'); return text(message); });
  server.registerTool('add_note', {
    title: 'Add note',
    description: 'Store a note in memory and return its key. Changes state, deletes nothing.',
    inputSchema: z.object({ text: z.string().describe('The note to store') }),
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  }, async ({ text: note }) => {
    logCall('add_note');
    const key = `n${nextNote++}`;
    notes.set(key, note);
    return text(key);
  });
  server.registerTool('delete_note', {
    title: 'Delete note',
    description: 'Delete the note with the given key. Destructive: the note is gone for good.',
    inputSchema: z.object({ key: z.string().describe('Key returned by add_note') }),
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  }, async ({ key }) => {
    logCall('delete_note');
    return text(notes.delete(key) ? `deleted ${key}` : `no note ${key}`);
  });
  if (process.env.SCOUT_TEST_MRTR) registerRoundTrips(server);
  return server;
}

// With SCOUT_TEST_MRTR set: two read-only tools that take several round trips on the
// 2026-07-28 wire (multi round-trip requests, the SDK's inputRequired); on the handshake era
// each answers at once.
const CAPS = 'io.modelcontextprotocol/clientCapabilities';
const stateOf = (ctx) => (typeof ctx.mcpReq.requestState === 'function'
  ? ctx.mcpReq.requestState() : ctx.mcpReq.requestState);
function registerRoundTrips(server) {
  server.registerTool('count_to_three', {
    title: 'Count to three',
    description: 'Counts one round trip at a time, carrying the count in requestState. Read-only.',
    inputSchema: z.object({}),
    annotations: readOnly,
  }, async (_args, ctx) => {
    logCall('count_to_three');
    if (!ctx.mcpReq.envelope) return text('three (no round trips on this revision)');
    const state = stateOf(ctx);
    if (!state) return inputRequired({ requestState: 'one' });
    if (state === 'one') return inputRequired({ requestState: 'two' });
    return text(`three, after ${state}`);
  });
  server.registerTool('confirm_greeting', {
    title: 'Confirm greeting',
    description: 'Asks the user to confirm (a form with one boolean) before greeting, when the client can show forms. Read-only.',
    inputSchema: z.object({}),
    annotations: readOnly,
  }, async (_args, ctx) => {
    logCall('confirm_greeting');
    const answer = ctx.mcpReq.inputResponses?.confirm;
    if (answer) return text(`greeting ${answer.action}`);
    const caps = ctx.mcpReq.envelope?.[CAPS];
    if (!caps?.elicitation) return text('hello (no form: the client cannot show one)');
    return inputRequired({
      inputRequests: {
        confirm: inputRequired.elicit({
          message: 'Send the greeting?',
          requestedSchema: { type: 'object', properties: { ok: { type: 'boolean', default: true, description: 'Send it' } } },
        }),
      },
      requestState: 'asked',
    });
  });
  server.registerTool('name_the_roots', {
    title: 'Name the roots',
    description: 'Lists the client\'s roots and asks its model for a one-line title for them; needs sampling and roots. Read-only.',
    inputSchema: z.object({}),
    annotations: readOnly,
  }, async (_args, ctx) => {
    logCall('name_the_roots');
    if (!ctx.mcpReq.envelope) return text('no roots on this revision');
    const got = ctx.mcpReq.inputResponses;
    if (got?.title && got?.roots) {
      const n = got.roots.roots?.length ?? 0;
      return text(`${n} root(s), titled by the model: ${got.title.content?.text ?? '?'}`);
    }
    return inputRequired({
      inputRequests: {
        roots: inputRequired.listRoots(),
        title: inputRequired.createMessage({
          messages: [{ role: 'user', content: { type: 'text', text: 'Give these roots a one-line title.' } }],
          maxTokens: 20,
        }),
      },
    });
  });
}

const [mode = 'stdio', portArg] = process.argv.slice(2);
if (mode === 'stdio') {
  const { serveStdio } = await import('@modelcontextprotocol/server/stdio');
  serveStdio(buildServer);
} else if (mode === 'http' && /^\d+$/.test(portArg ?? '')) {
  const port = Number(portArg);
  const onerror = (e) => console.error('[ts_server]', e.message);
  const lenient = toNodeHandler(createMcpHandler(buildServer, { onerror }));
  const strict = toNodeHandler(createMcpHandler(buildServer, { legacy: 'reject', onerror }));
  const validHost = localhostHostValidation();
  const validOrigin = localhostOriginValidation();
  createServer((req, res) => {
    if (!validHost(req, res) || !validOrigin(req, res)) return;
    const path = new URL(req.url ?? '/', 'http://localhost').pathname;
    if (path === '/mcp') return lenient(req, res);
    if (path === '/mcp-strict') return strict(req, res);
    res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
  }).listen(port, '127.0.0.1', () => console.error(`ts_server listening on http://127.0.0.1:${port}/mcp`));
} else {
  console.error('usage: node ts_server.mjs stdio | node ts_server.mjs http PORT');
  process.exit(2);
}

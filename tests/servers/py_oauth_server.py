"""A protected MCP server on the Python SDK (PyPI `mcp` 2.x) with the SDK's built-in OAuth
authorization server in the same process, for scout's auth tests (`scout auth login`, the
refresh token grant).

The SDK serves RFC 8414 metadata, dynamic client registration, /authorize (PKCE S256), /token
and the RFC 9728 metadata of the resource at /mcp (scope `mcp`). The provider below keeps
everything in memory and approves every authorization request at once (no login page), so a
test can play the browser. A pre-registered public client `scout-desk` holds the refresh token
in $PY_OAUTH_REFRESH_TOKEN (when set), for `scout check --client-id scout-desk
--refresh-token-env …`. Refresh tokens rotate, as the spec requires for public clients.

Usage: python py_oauth_server.py PORT   (binds 127.0.0.1)
"""
import os
import secrets
import sys
import time

from mcp.server.auth.provider import (
    AccessToken,
    AuthorizationCode,
    AuthorizationParams,
    RefreshToken,
    construct_redirect_uri,
)
from mcp.server.auth.settings import AuthSettings, ClientRegistrationOptions
from mcp.server.mcpserver import MCPServer
from mcp.shared.auth import OAuthClientInformationFull, OAuthToken
from mcp.types import ToolAnnotations

PORT = int(sys.argv[1])
BASE = f"http://127.0.0.1:{PORT}"
RESOURCE = f"{BASE}/mcp"


class InstantApproval:
    """An in-memory provider that approves every authorization request."""

    def __init__(self):
        self.clients = {}
        self.codes = {}
        self.tokens = {}
        self.refresh = {}
        self.clients["scout-desk"] = OAuthClientInformationFull(
            client_id="scout-desk", redirect_uris=["http://127.0.0.1:1/callback"],
            token_endpoint_auth_method="none",
            grant_types=["authorization_code", "refresh_token"], scope="mcp")
        seeded = os.environ.get("PY_OAUTH_REFRESH_TOKEN")
        if seeded:
            self.refresh[seeded] = RefreshToken(token=seeded, client_id="scout-desk",
                                                scopes=["mcp"], resource=RESOURCE)

    async def get_client(self, client_id):
        return self.clients.get(client_id)

    async def register_client(self, client_info):
        self.clients[client_info.client_id] = client_info

    async def authorize(self, client, params: AuthorizationParams) -> str:
        code = secrets.token_urlsafe(16)
        self.codes[code] = AuthorizationCode(
            code=code, scopes=params.scopes or ["mcp"], expires_at=time.time() + 300,
            client_id=client.client_id, code_challenge=params.code_challenge,
            redirect_uri=params.redirect_uri,
            redirect_uri_provided_explicitly=params.redirect_uri_provided_explicitly,
            resource=params.resource)
        return construct_redirect_uri(str(params.redirect_uri), code=code, state=params.state)

    async def load_authorization_code(self, client, authorization_code):
        return self.codes.get(authorization_code)

    def issue(self, client_id, scopes, resource):
        at, rt = secrets.token_urlsafe(24), secrets.token_urlsafe(24)
        self.tokens[at] = AccessToken(token=at, client_id=client_id, scopes=scopes,
                                      expires_at=int(time.time()) + 3600, resource=resource)
        self.refresh[rt] = RefreshToken(token=rt, client_id=client_id, scopes=scopes,
                                        resource=resource)
        return OAuthToken(access_token=at, token_type="Bearer", expires_in=3600,
                          scope=" ".join(scopes), refresh_token=rt)

    async def exchange_authorization_code(self, client, authorization_code):
        self.codes.pop(authorization_code.code, None)
        return self.issue(client.client_id, authorization_code.scopes, authorization_code.resource)

    async def load_refresh_token(self, client, refresh_token):
        return self.refresh.get(refresh_token)

    async def exchange_refresh_token(self, client, refresh_token, scopes):
        self.refresh.pop(refresh_token.token, None)  # rotation
        return self.issue(client.client_id, scopes or refresh_token.scopes, refresh_token.resource)

    async def load_access_token(self, token):
        t = self.tokens.get(token)
        if t and t.expires_at and t.expires_at < time.time():
            return None
        return t

    async def revoke_token(self, token):
        self.tokens.pop(getattr(token, "token", ""), None)
        self.refresh.pop(getattr(token, "token", ""), None)


mcp = MCPServer(
    name="scout-py-oauth",
    version="0.1.0",
    auth_server_provider=InstantApproval(),
    auth=AuthSettings(
        issuer_url=BASE,
        resource_server_url=RESOURCE,
        required_scopes=["mcp"],
        client_registration_options=ClientRegistrationOptions(
            enabled=True, valid_scopes=["mcp"], default_scopes=["mcp"]),
    ),
)


@mcp.tool(description="Return a greeting for the logged-in user. Read-only.",
          annotations=ToolAnnotations(readOnlyHint=True, destructiveHint=False))
def hello() -> str:
    return "hello, authorised user"


if __name__ == "__main__":
    mcp.run("streamable-http", host="127.0.0.1", port=PORT)

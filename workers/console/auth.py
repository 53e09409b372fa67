"""The console's operator token: a bearer header, or a cookie set from a one-time ``?token=``.

``crag console`` prints ``http://127.0.0.1:<port>/?token=<token>``; opening it sets an
HttpOnly, SameSite=Strict cookie and redirects to the same page without the token, so it
does not stay in the address bar or the history. Scripts send ``Authorization: Bearer``.
Tokens are compared in constant time.
"""

from __future__ import annotations

import hmac
from urllib.parse import urlencode

from fastapi import Request
from fastapi.responses import PlainTextResponse, RedirectResponse, Response

COOKIE = "crag_console"

REFUSED = (
    "console: this request carries no operator token, or a wrong one. Open the URL that "
    "`crag console` printed (it ends in ?token=…), or send 'Authorization: Bearer <token>' "
    "(the token is CRAG_CONSOLE_TOKEN when set)."
)


def presented(request: Request) -> str | None:
    """The token a request carries: its bearer header, else its console cookie."""
    header = request.headers.get("authorization", "")
    if header[:7].lower() == "bearer ":
        return header[7:].strip()
    return request.cookies.get(COOKIE)


def gate(request: Request, token: str) -> Response | None:
    """``None`` if the request may pass; else the response to send instead.

    A correct ``?token=`` gets a redirect that sets the cookie; anything without a correct
    token gets 401 with :data:`REFUSED`, which names the fix.
    """
    given = request.query_params.get("token")
    if given is not None and hmac.compare_digest(given.encode(), token.encode()):
        rest = [(k, v) for k, v in request.query_params.multi_items() if k != "token"]
        target = request.url.path + (f"?{urlencode(rest)}" if rest else "")
        redirect = RedirectResponse(target, status_code=303)
        redirect.set_cookie(COOKIE, token, httponly=True, samesite="strict", path="/")
        return redirect
    carried = presented(request)
    if carried is not None and hmac.compare_digest(carried.encode(), token.encode()):
        return None
    return PlainTextResponse(REFUSED, status_code=401, headers={"WWW-Authenticate": "Bearer"})

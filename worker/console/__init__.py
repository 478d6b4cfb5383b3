"""`accord console`: a read-only web console over one deployment's Redis.

`data` reads (async, Redis), `pages` renders (pure, HTML-escaped), `server` serves
them as FastStream ASGI routes behind the authentication rule.
"""

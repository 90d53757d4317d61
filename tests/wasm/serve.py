#!/usr/bin/env python3
"""serve.py DIR [--isolate] -- a static file server for the browser tests.

Serves DIR on 127.0.0.1 at a free port and prints "port N" once it listens.
With --isolate every response carries Cross-Origin-Opener-Policy: same-origin
and Cross-Origin-Embedder-Policy: require-corp, which make the page
cross-origin isolated (self.crossOriginIsolated; the browser's clock then
steps by 5 us instead of 100 us).  No caching, so a rebuilt page is seen.
"""
import functools
import http.server
import sys


class Handler(http.server.SimpleHTTPRequestHandler):
    isolate = False

    def end_headers(self):
        if self.isolate:
            self.send_header("Cross-Origin-Opener-Policy", "same-origin")
            self.send_header("Cross-Origin-Embedder-Policy", "require-corp")
            self.send_header("Cross-Origin-Resource-Policy", "same-origin")
        self.send_header("Cache-Control", "no-store")
        super().end_headers()

    def log_message(self, fmt, *args):  # requests to stderr, one line each
        sys.stderr.write("serve: " + (fmt % args) + "\n")


def main():
    args = sys.argv[1:]
    if not args or args[0].startswith("-"):
        sys.exit("usage: serve.py DIR [--isolate]")
    Handler.isolate = "--isolate" in args[1:]
    handler = functools.partial(Handler, directory=args[0])
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    print("port", server.server_address[1], flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()

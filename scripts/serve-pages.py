#!/usr/bin/env python3
"""Serves DIR on 127.0.0.1:PORT for the benches. http.server's listen
backlog of 5 drops connections under concurrent requests (each dropped SYN
costs a 1 s retransmit), so this one keeps a deep backlog and logs nothing."""
import functools
import http.server
import sys

directory, port = sys.argv[1], int(sys.argv[2])
http.server.ThreadingHTTPServer.request_queue_size = 1024
class Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


handler = functools.partial(Quiet, directory=directory)
http.server.ThreadingHTTPServer(("127.0.0.1", port), handler).serve_forever()

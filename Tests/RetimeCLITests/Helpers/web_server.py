#!/usr/bin/env python3
"""Stands in for websites and a DNS-over-HTTPS service in the browser tests.
On every ADDRESS it serves HTTP on port 80 and HTTPS on port 443 (CERT and
KEY, PEM). A page names the host asked for and the scheme,
`retime-test-page HOST SCHEME`, and may not be cached, so a browser that
shows it has just reached this server. `/dns-query` is DNS over HTTPS
(RFC 8484: GET with `?dns=`, or POST of an application/dns-message),
answered from RECORDS as dns_responder.py answers, with a time-to-live of
TTL. Prints "ready" once listening.

usage: web_server.py CERT KEY RECORDS TTL ADDRESS...
"""
import base64
import http.server
import json
import os
import ssl
import sys
import threading
import urllib.parse

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from dns_responder import answer  # noqa: E402


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def reply(self, status, kind, body, cache="no-store"):
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", cache)
        self.end_headers()
        self.wfile.write(body)

    def dns(self, query):
        with open(self.server.records) as file:
            records = {k.lower(): v for k, v in json.load(file).items()}
        reply = answer(query or b"", records, self.server.ttl)
        if reply is None:
            self.reply(400, "text/plain", b"not a DNS message\n")
        else:
            self.reply(200, "application/dns-message", reply, cache="max-age=%d" % self.server.ttl)

    def do_GET(self):
        url = urllib.parse.urlsplit(self.path)
        if url.path == "/dns-query":
            text = urllib.parse.parse_qs(url.query).get("dns", [""])[0]
            self.dns(base64.urlsafe_b64decode(text + "=" * (-len(text) % 4)))
            return
        host = (self.headers.get("Host") or "").rsplit(":", 1)[0]
        page = "<!doctype html><title>%s</title><p>retime-test-page %s %s</p>\n" % (host, host, self.server.scheme)
        self.reply(200, "text/html; charset=utf-8", page.encode())

    def do_POST(self):
        length = int(self.headers.get("Content-Length") or 0)
        self.dns(self.rfile.read(length))

    def log_message(self, *args):
        pass


class Server(http.server.ThreadingHTTPServer):
    daemon_threads = True
    context = None

    def finish_request(self, request, client_address):
        # The TLS handshake runs in the connection's own thread.
        if self.context:
            request.settimeout(10)
            try:
                request = self.context.wrap_socket(request, server_side=True)
            except (OSError, ssl.SSLError):
                return
            request.settimeout(None)
        super().finish_request(request, client_address)

    def handle_error(self, request, client_address):
        pass  # a connection the firewall cut, a client gone: not the server's to report


def main():
    cert, key, records, ttl, addresses = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5:]
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)
    context.set_alpn_protocols(["http/1.1"])
    for address in addresses:
        for port, scheme in ((80, "http"), (443, "https")):
            server = Server((address, port), Handler)
            server.scheme, server.records, server.ttl = scheme, records, ttl
            server.context = context if scheme == "https" else None
            threading.Thread(target=server.serve_forever, daemon=True).start()
    print("ready", flush=True)
    threading.Event().wait()


if __name__ == "__main__":
    main()

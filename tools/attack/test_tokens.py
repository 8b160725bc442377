"""Token attacks: tokens that are not valid yet, tokens for another issuer or audience, sockets
that outlive their token, and refreshes with someone else's token.

Expected: `nbf` or `iat` more than 60 s in the future gets AUTH_ERR and close 4001 (30 s of clock
skew is fine); with --jwt-issuer and --jwt-audience, a token whose `iss` or `aud` is missing or
different gets AUTH_ERR and close 4001. A socket is closed with 4003 when its token expires,
unless `refreshToken` brought a later token of the same user; a refresh with a token of another
user or another secret gets AUTH_ERR, the socket stays open and still closes when its own token
expires.
"""

from __future__ import annotations

import time

import pytest

import raw_ws
from raw_ws import Client, error_code

LIFETIME = 8  # seconds of the short-lived tokens: room for a loaded machine
ISSUER = "https://auth.example.test"
AUDIENCE = "callgate-attack-tests"


@pytest.mark.parametrize("claim", ["nbf", "iat"])
def test_token_from_the_future(gateway, bystanders, claim):
    pair = bystanders(gateway)
    eve = Client(gateway.port)
    reply = eve.request("connect", {"token": gateway.token("eve", **{claim: int(time.time()) + 3600})})
    assert error_code(reply) == "AUTH_ERR", reply
    assert eve.closed() == 4001
    pair.check()


def test_small_clock_skew_is_accepted(gateway, bystanders):
    pair = bystanders(gateway)
    soon = int(time.time()) + 30
    Client.connect(gateway.port, gateway.token("eve", nbf=soon, iat=soon)).result("ping")
    pair.check()


def test_expired_token_closes_4003(gateway, bystanders):
    pair = bystanders(gateway)
    eve = Client.connect(gateway.port, gateway.token("eve", ttl=LIFETIME))
    assert eve.closed(timeout=LIFETIME + 8) == 4003
    pair.check()


def test_refresh_keeps_the_socket_open(gateway, bystanders):
    pair = bystanders(gateway)
    eve = Client.connect(gateway.port, gateway.token("eve", ttl=LIFETIME))
    later = int(time.time()) + 3600
    assert eve.result("refreshToken", {"token": gateway.token("eve", ttl=3600)})["tokenExpiresAt"] >= later - 1
    time.sleep(LIFETIME + 1)
    eve.result("ping")
    pair.check()


FOREIGN = {
    "another uid": lambda gateway: gateway.token("alice"),
    "wrong secret": lambda gateway: raw_ws.token("not-the-secret", "eve"),
}


@pytest.mark.parametrize("kind", FOREIGN)
def test_refresh_with_a_foreign_token(gateway, bystanders, kind):
    pair = bystanders(gateway)
    eve = Client.connect(gateway.port, gateway.token("eve", ttl=LIFETIME))
    assert eve.error("refreshToken", {"token": FOREIGN[kind](gateway)}) == "AUTH_ERR"
    eve.result("ping")
    assert eve.closed(timeout=LIFETIME + 8) == 4003
    pair.check()


ISSUED = {  # claims: whether a gateway with --jwt-issuer and --jwt-audience accepts them
    "matching": ({"iss": ISSUER, "aud": AUDIENCE}, True),
    "no iss": ({"aud": AUDIENCE}, False),
    "no aud": ({"iss": ISSUER}, False),
    "other iss": ({"iss": "https://evil.example.test", "aud": AUDIENCE}, False),
    "other aud": ({"iss": ISSUER, "aud": "someone-else"}, False),
}


def test_issuer_and_audience(start_gateway, bystanders):
    gateway = start_gateway("--jwt-issuer", ISSUER, "--jwt-audience", AUDIENCE)
    gateway.claims = {"iss": ISSUER, "aud": AUDIENCE}
    pair = bystanders(gateway)
    wrong = []
    for case, (claims, valid) in ISSUED.items():
        eve = Client(gateway.port)
        reply = eve.request("connect", {"token": raw_ws.token(gateway.secret, "eve", **claims)})
        answer = "accepted" if "result" in reply else f"{error_code(reply)}, close {eve.closed()}"
        if answer != ("accepted" if valid else "AUTH_ERR, close 4001"):
            wrong.append(f"{case}: {answer}")
        eve.close()
    assert not wrong, wrong
    pair.check()

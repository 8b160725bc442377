"""Token key attacks on a gateway that verifies connection tokens with public keys (RS256, ES256,
EdDSA; `--jwt-public-key`, `--jwt-jwks-url`): algorithm confusion, unknown and missing key ids,
hostile tokens, and a flood of unknown key ids against a JWKS URL.

Expected: every forged token gets AUTH_ERR and close 4001, even where its signature is real under
another algorithm (PS256, RS384, RS512 with the RSA key; an EC signature under an RS256 header)
or where it is an HS256 MAC keyed with a public key's PEM bytes (refused as the wrong algorithm
without a secret, as a bad signature with one); a kid no key has is refused; unknown kids make the
gateway read its JWKS URL at most once per --jwt-jwks-cooldown, however many arrive. The
bystanders connect with EdDSA tokens.
"""

from __future__ import annotations

import http.server
import json
import threading
import time
import uuid
from concurrent.futures import ThreadPoolExecutor

import pytest

import jose
from jose import KeyPair
from raw_ws import Client, error_code


@pytest.fixture(scope="module")
def keys(tmp_path_factory) -> dict[str, KeyPair]:
    directory = tmp_path_factory.mktemp("keys")
    return {kind: KeyPair.make(kind, directory, f"{kind}-1") for kind in ("rsa", "ec", "ed25519")}


def start_with_keys(start_gateway, keys, *flags: str, secret: str | None = None):
    """A gateway verifying with the three public keys (and `secret` when given); its own tokens
    (the bystanders') are EdDSA."""
    files = [arg for key in keys.values() for arg in ("--jwt-public-key", str(key.public))]
    ed = keys["ed25519"]
    return start_gateway(*files, *flags, secret=secret, signer=lambda uid, ttl, claims: ed.token(uid, ttl, claims))


def refusal(port: int, token: str) -> str:
    """How the gateway answered `connect` with `token`: "accepted", or the error code and close."""
    client = Client(port)
    reply = client.request("connect", {"token": token})
    if "result" in reply:
        client.close()
        return "accepted"
    answer = f"{error_code(reply)}, close {client.closed()}"
    client.close()
    return answer


def forgeries(keys) -> dict[str, str]:
    """Tokens for eve that no gateway with these public keys may accept, by what they try."""
    rsa, ec, ed = keys["rsa"], keys["ec"], keys["ed25519"]
    claims = jose.user_claims("eve")

    def header(alg, kid):
        return {"alg": alg, "typ": "JWT", **({"kid": kid} if kid is not None else {})}

    forged = {}
    for key in (rsa, ec, ed):
        pem = key.public.read_bytes()
        forged[f"HS256 keyed with the {key.kind} public key PEM, kid {key.kid}"] = jose.sign(
            header("HS256", key.kid), claims, jose.hmac_signer(pem))
        forged[f"HS256 keyed with the {key.kind} public key PEM, no kid"] = jose.sign(
            header("HS256", None), claims, jose.hmac_signer(pem))
    forged["alg none, no signature"] = jose.sign(header("none", rsa.kid), claims, lambda data: b"")
    forged["alg None with an RS256 signature"] = jose.sign(header("None", rsa.kid), claims, rsa.signer())
    forged["RS256 header, the EC key's kid, signed by the EC key"] = jose.sign(header("RS256", ec.kid), claims, ec.signer())
    forged["RS256 header, the EC key's kid, signed by the RSA key"] = jose.sign(header("RS256", ec.kid), claims, rsa.signer())
    forged["ES256 header, the RSA key's kid, signed by the EC key"] = jose.sign(header("ES256", rsa.kid), claims, ec.signer())
    forged["EdDSA header, the RSA key's kid, signed by the Ed25519 key"] = jose.sign(header("EdDSA", rsa.kid), claims, ed.signer())
    for alg in ("PS256", "RS384", "RS512"):
        forged[f"{alg}, a real signature by the RSA key"] = jose.sign(header(alg, rsa.kid), claims, rsa.signer(alg))
    forged["ES384 header, the EC key's kid"] = jose.sign(header("ES384", ec.kid), claims, ec.signer())
    forged["Ed25519 header, the Ed25519 key's kid"] = jose.sign(header("Ed25519", ed.kid), claims, ed.signer())
    forged["RS256, a kid no key has"] = jose.sign(header("RS256", "rsa-2"), claims, rsa.signer())
    forged["RS256, a kid of 300 bytes"] = jose.sign(header("RS256", "k" * 300), claims, rsa.signer())
    forged["RS256, a numeric kid"] = jose.sign({"alg": "RS256", "kid": 1}, claims, rsa.signer())
    forged["RS256, a token of 9000 bytes"] = jose.sign(header("RS256", rsa.kid), {**claims, "pad": "x" * 9000}, rsa.signer())
    valid = rsa.token("eve")
    forged["RS256, the signature cut short"] = valid[:-10]
    forged["RS256, the signature not base64url"] = valid.rsplit(".", 1)[0] + ".%%%%"
    forged["RS256, the payload swapped after signing"] = ".".join(
        [valid.split(".")[0], jose.sign({}, jose.user_claims("alice"), lambda data: b"").split(".")[1], valid.split(".")[2]])
    return forged


@pytest.mark.parametrize("secret", [None, "attack-test-secret"], ids=["keys only", "keys and a secret"])
def test_algorithm_confusion_and_forged_keys(start_gateway, bystanders, keys, secret):
    gateway = start_with_keys(start_gateway, keys, secret=secret)
    pair = bystanders(gateway)
    for kind in ("rsa", "ec", "ed25519"):
        assert refusal(gateway.port, keys[kind].token("carol")) == "accepted", kind
    wrong = {case: answer for case, token in forgeries(keys).items()
             if (answer := refusal(gateway.port, token)) != "AUTH_ERR, close 4001"}
    assert not wrong, wrong
    pair.check()


def test_a_token_without_kid_with_two_keys_of_its_algorithm(start_gateway, bystanders, keys, tmp_path):
    second = KeyPair.make("rsa", tmp_path, "rsa-2")
    gateway = start_with_keys(start_gateway, keys, "--jwt-public-key", str(second.public))
    pair = bystanders(gateway)
    no_kid = jose.sign({"alg": "RS256", "typ": "JWT"}, jose.user_claims("eve"), keys["rsa"].signer())
    assert refusal(gateway.port, no_kid) == "AUTH_ERR, close 4001"
    assert refusal(gateway.port, second.token("eve")) == "accepted"
    ec_no_kid = jose.sign({"alg": "ES256", "typ": "JWT"}, jose.user_claims("eve"), keys["ec"].signer())
    assert refusal(gateway.port, ec_no_kid) == "accepted", "the one EC key"
    pair.check()


class JWKSHandler(http.server.BaseHTTPRequestHandler):
    """Serves the server's `jwks` bytes and counts requests in `server.requests`."""

    def do_GET(self):
        self.server.requests += 1
        body = self.server.jwks
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


@pytest.fixture
def jwks_server(keys):
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), JWKSHandler)
    server.requests = 0
    server.jwks = json.dumps({"keys": [keys["ec"].jwk()]}).encode()
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield server
    server.shutdown()
    server.server_close()


COOLDOWN = 2  # seconds: --jwt-jwks-cooldown of the flood


def test_unknown_kids_do_not_make_the_gateway_hammer_its_jwks_url(start_gateway, bystanders, keys, jwks_server):
    ec = keys["ec"]
    url = f"http://127.0.0.1:{jwks_server.server_address[1]}/jwks.json"
    gateway = start_gateway("--jwt-jwks-url", url, "--jwt-jwks-cooldown", str(COOLDOWN), secret=None,
                            signer=lambda uid, ttl, claims: ec.token(uid, ttl, claims))
    assert jwks_server.requests == 1, "read once at start"
    pair = bystanders(gateway)

    def stranger(_):
        token = jose.sign({"alg": "ES256", "kid": f"stranger-{uuid.uuid4()}"}, jose.user_claims("eve"), ec.signer())
        return refusal(gateway.port, token)

    started = time.monotonic()
    with ThreadPoolExecutor(max_workers=8) as pool:
        answers = list(pool.map(stranger, range(200)))
    elapsed = time.monotonic() - started
    assert set(answers) == {"AUTH_ERR, close 4001"}
    reads = jwks_server.requests - 1
    assert reads <= elapsed / COOLDOWN + 1, f"{reads} reads in {elapsed:.1f} s"
    assert refusal(gateway.port, ec.token("carol")) == "accepted"
    pair.check()

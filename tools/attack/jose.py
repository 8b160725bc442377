"""Key pairs and JWTs for the token key attacks, made with the openssl command (as an operator's
backend would make them), so the tests need no Python crypto package.

`KeyPair.make(kind, directory, kid)` writes `<kid>.pem` (public) and `<kid>.key` (private) of an
`rsa` (2048 bits), `ec` (P-256) or `ed25519` key; `sign(header, claims, signer)` builds a JWT
whose header is exactly `header`, the signature made by `signer(signing_input) -> bytes`. The
signers cover what the gateway accepts (RS256, ES256, EdDSA) and what it must refuse even when
the signature is real (PS256, RS384, RS512, HS256 under any key bytes).
"""

from __future__ import annotations

import hashlib
import hmac
import json
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from raw_ws import b64url

GENPKEY = {
    "rsa": ["-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048"],
    "ec": ["-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256"],
    "ed25519": ["-algorithm", "ed25519"],
}
ALGORITHM = {"rsa": "RS256", "ec": "ES256", "ed25519": "EdDSA"}


def openssl(*arguments: str, data: bytes = b"") -> bytes:
    return subprocess.run(["openssl", *arguments], input=data, capture_output=True, check=True).stdout


@dataclass
class KeyPair:
    kind: str
    kid: str
    private: Path
    public: Path

    @classmethod
    def make(cls, kind: str, directory: Path, kid: str) -> KeyPair:
        private, public = directory / f"{kid}.key", directory / f"{kid}.pem"
        openssl("genpkey", *GENPKEY[kind], "-out", str(private))
        openssl("pkey", "-in", str(private), "-pubout", "-out", str(public))
        return cls(kind, kid, private, public)

    def signer(self, algorithm: str | None = None):
        """A signer with this key: its own algorithm, or an RSA one named by `algorithm`."""
        algorithm = algorithm or ALGORITHM[self.kind]
        key = str(self.private)
        if self.kind == "ed25519":
            return lambda data: _pkeyutl_sign(key, data)
        if self.kind == "ec":
            return lambda data: _der_to_raw(openssl("dgst", "-sha256", "-sign", key, data=data))
        digest = {"RS256": "-sha256", "RS384": "-sha384", "RS512": "-sha512", "PS256": "-sha256"}[algorithm]
        pss = ["-sigopt", "rsa_padding_mode:pss", "-sigopt", "rsa_pss_saltlen:32"] if algorithm.startswith("PS") else []
        return lambda data: openssl("dgst", digest, *pss, "-sign", key, data=data)

    def token(self, uid: str, ttl: float = 3600, claims: dict | None = None) -> str:
        """A valid token for `uid` signed with this key and naming its kid."""
        return sign({"alg": ALGORITHM[self.kind], "typ": "JWT", "kid": self.kid},
                    user_claims(uid, ttl, claims or {}), self.signer())

    def jwk(self) -> dict:
        """The public key as a JWK (EC keys only: all the JWKS URL attack needs)."""
        assert self.kind == "ec"
        der = openssl("pkey", "-pubin", "-in", str(self.public), "-outform", "DER")
        return {"kty": "EC", "crv": "P-256", "kid": self.kid, "x": b64url(der[-64:-32]), "y": b64url(der[-32:])}


def user_claims(uid: str, ttl: float = 3600, claims: dict | None = None) -> dict:
    return {"sub": uid, "name": uid.capitalize(), "exp": int(time.time() + ttl), **(claims or {})}


def sign(header: dict, claims: dict, signer) -> str:
    signing_input = ".".join(b64url(json.dumps(part, separators=(",", ":")).encode()) for part in (header, claims))
    return f"{signing_input}.{b64url(signer(signing_input.encode()))}"


def hmac_signer(key: bytes):
    """HS256 under `key`: with a public key's PEM bytes, the classic algorithm confusion."""
    return lambda data: hmac.new(key, data, hashlib.sha256).digest()


def _pkeyutl_sign(key: str, data: bytes) -> bytes:
    """An Ed25519 signature: OpenSSL 3.0 signs raw input for EdDSA only from a file, not a pipe."""
    with tempfile.NamedTemporaryFile() as message:
        message.write(data)
        message.flush()
        return openssl("pkeyutl", "-sign", "-rawin", "-inkey", key, "-in", message.name)


def _der_to_raw(der: bytes) -> bytes:
    """An ECDSA signature as openssl writes it (DER SEQUENCE of r and s) as JOSE wants it: r || s,
    32 bytes each."""
    values, index = [], 2
    for _ in range(2):
        length = der[index + 1]
        values.append(int.from_bytes(der[index + 2:index + 2 + length], "big"))
        index += 2 + length
    return b"".join(value.to_bytes(32, "big") for value in values)

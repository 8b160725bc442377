#!/usr/bin/env bash
# Makes a self-signed TLS certificate for trying and testing wss:// and https:// locally.
#
#   tools/make-cert.sh DIR [NAME...]
#
# Writes DIR/cert.pem (the certificate, which is also its own CA: give it to a client as the
# CA file) and DIR/key.pem (its P-256 private key, mode 600). The certificate names localhost,
# 127.0.0.1 and ::1, plus each NAME (a DNS name or an IP address). It is valid for 30 days
# (CALLGATE_CERT_DAYS changes that). Needs the openssl command; uses no system OpenSSL config.
# Never use such a certificate in production: get one from a real CA (e.g. Let's Encrypt).
set -euo pipefail

if [ $# -lt 1 ]; then
  echo "usage: $0 DIR [NAME...]" >&2
  exit 2
fi
dir=$1
shift
command -v openssl >/dev/null || { echo "make-cert: the openssl command is missing (apt-get install openssl)" >&2; exit 1; }
mkdir -p "$dir"

names="DNS:localhost,IP:127.0.0.1,IP:::1"
for name in "$@"; do
  if [[ $name =~ ^[0-9.]+$ || $name == *:* ]]; then
    names="$names,IP:$name"
  else
    names="$names,DNS:$name"
  fi
done

config=$(mktemp)
trap 'rm -f "$config"' EXIT
cat >"$config" <<CONF
[req]
prompt = no
distinguished_name = subject
x509_extensions = extensions
[subject]
CN = callgate test certificate
[extensions]
basicConstraints = critical, CA:TRUE
keyUsage = critical, digitalSignature, keyCertSign
extendedKeyUsage = serverAuth
subjectKeyIdentifier = hash
subjectAltName = $names
CONF

umask 077
openssl req -x509 -new -nodes -config "$config" \
  -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 \
  -days "${CALLGATE_CERT_DAYS:-30}" \
  -keyout "$dir/key.pem" -out "$dir/cert.pem" 2>/dev/null
chmod 644 "$dir/cert.pem"
echo "$dir/cert.pem"

"""The certificates of go-plugin's automatic mutual TLS.

Terraform does not trust the plugin's socket by itself: it makes a fresh key and self-signed
certificate for every launch, hands the certificate to the plugin in ``PLUGIN_CLIENT_CERT``, and the
plugin answers with its own fresh certificate in the handshake line. Each side then accepts only the
other's certificate, so nothing else on the machine can talk to the provider or pose as it. The
plugin checks the client certificate the way go-plugin makes it: ECDSA P-521, a CA certificate
valid for the name ``localhost`` and for both client and server authentication.
"""

from __future__ import annotations

import base64
import binascii
import datetime
import secrets
from dataclasses import dataclass

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

# The name both sides put in and check against their certificates.
TLS_SERVER_NAME = "localhost"


@dataclass(frozen=True, slots=True)
class ClientCertificate:
    """PEM bytes of the client's certificate (sent to the plugin) and private key (kept here)."""

    cert_pem: bytes
    key_pem: bytes


def generate_client_certificate() -> ClientCertificate:
    """A new key and self-signed certificate for one plugin launch (cheap beside the launch)."""
    key = ec.generate_private_key(ec.SECP521R1())
    name = x509.Name(
        [x509.NameAttribute(NameOID.COMMON_NAME, TLS_SERVER_NAME), x509.NameAttribute(NameOID.ORGANIZATION_NAME, "ctl")]
    )
    now = datetime.datetime.now(datetime.UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(secrets.randbits(127) + 1)
        .not_valid_before(now - datetime.timedelta(seconds=30))
        .not_valid_after(now + datetime.timedelta(days=365))
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .add_extension(
            x509.KeyUsage(
                digital_signature=True,
                content_commitment=False,
                key_encipherment=True,
                data_encipherment=False,
                key_agreement=True,
                key_cert_sign=True,
                crl_sign=False,
                encipher_only=False,
                decipher_only=False,
            ),
            critical=True,
        )
        .add_extension(
            x509.ExtendedKeyUsage([ExtendedKeyUsageOID.CLIENT_AUTH, ExtendedKeyUsageOID.SERVER_AUTH]),
            critical=False,
        )
        .add_extension(x509.SubjectAlternativeName([x509.DNSName(TLS_SERVER_NAME)]), critical=False)
        .sign(key, hashes.SHA512())
    )
    return ClientCertificate(
        cert_pem=cert.public_bytes(serialization.Encoding.PEM),
        key_pem=key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        ),
    )


def server_certificate_pem(field: str) -> bytes:
    """The plugin's certificate from the handshake line's last field, as PEM for gRPC.

    The field is the DER certificate in standard base64 without ``=`` padding (a newline-free
    form, since the handshake is one line); padding is restored before decoding. Raises
    ``ValueError`` when the field is not a certificate.
    """
    text = field.strip()
    try:
        der = base64.b64decode(text + "=" * (-len(text) % 4), validate=True)
        cert = x509.load_der_x509_certificate(der)
    except (binascii.Error, ValueError) as exc:
        raise ValueError(f"the server certificate in the handshake is not valid: {exc}") from None
    return cert.public_bytes(serialization.Encoding.PEM)
